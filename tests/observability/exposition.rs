//! Reading the Prometheus text format back: samples by name and exact label set.

use std::collections::BTreeMap;

/// One scrape: each sample's name, labels and value.
pub(crate) struct Exposition {
    pub(crate) text: String,
    samples: Vec<(String, BTreeMap<String, String>, f64)>,
}

impl Exposition {
    /// Parses `text` (comments skipped; values as Prometheus writes them).
    pub(crate) fn parse(text: String) -> Self {
        let samples = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').expect("a sample line");
                let (name, labels) = match series.split_once('{') {
                    Some((name, labels)) => (name, labels.trim_end_matches('}')),
                    None => (series, ""),
                };
                (
                    name.to_owned(),
                    labels_of(labels),
                    value.parse().expect("a number"),
                )
            })
            .collect();
        Self { text, samples }
    }

    /// The value of `name` with exactly `labels`; 0 when there is no such sample (a series
    /// nothing counted yet).
    pub(crate) fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let wanted: BTreeMap<String, String> = labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        self.samples
            .iter()
            .find(|(n, l, _)| n == name && *l == wanted)
            .map_or(0.0, |(_, _, value)| *value)
    }

    /// The sum of `name` over every sample whose labels include `labels`.
    pub(crate) fn sum(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .filter(|(n, l, _)| {
                n == name
                    && labels
                        .iter()
                        .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
            })
            .map(|(_, _, value)| value)
            .sum()
    }
}

/// `a="1",b="x"` as a map (values here hold no quotes or commas).
fn labels_of(text: &str) -> BTreeMap<String, String> {
    text.split("\",")
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').expect("label=value");
            (key.to_owned(), value.trim_matches('"').to_owned())
        })
        .collect()
}
