//! Doc comments as descriptions: `///` lines become titles and descriptions, as clap and schemars
//! do it.

use syn::{Attribute, Expr, Lit, Meta};

/// The text of every `#[doc = "..."]` attribute, one entry per line, with the single leading
/// space rustdoc adds removed.
pub(crate) fn lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(expr) => match &expr.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.split('\n')
                .map(|line| line.trim_end_matches('\r').to_owned())
                .collect::<Vec<_>>()
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect()
}

/// A doc comment split into its first paragraph (the title) and the whole text (the
/// description). Both are `None` when there is no doc comment or it is blank.
pub(crate) struct Doc {
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
}

/// Reads the doc comment of an item.
pub(crate) fn read(attrs: &[Attribute]) -> Doc {
    let lines = lines(attrs);
    let text = lines.join("\n").trim().to_owned();
    if text.is_empty() {
        return Doc {
            title: None,
            description: None,
        };
    }
    let title = text
        .split("\n\n")
        .next()
        .map(|para| para.split_whitespace().collect::<Vec<_>>().join(" "))
        .map(|t| t.trim_end_matches('.').to_owned())
        .filter(|t| !t.is_empty());
    Doc {
        title,
        description: Some(text),
    }
}

/// Splits a type name such as `CurrencyAgent` into words: `Currency Agent`.
pub(crate) fn words_from_type_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let boundary = i > 0
            && c.is_uppercase()
            && (chars[i - 1].is_lowercase()
                || chars.get(i + 1).is_some_and(|next| next.is_lowercase())
                    && chars[i - 1].is_uppercase());
        if c == '_' {
            out.push(' ');
            continue;
        }
        if boundary {
            out.push(' ');
        }
        out.push(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_split_into_words() {
        assert_eq!(words_from_type_name("CurrencyAgent"), "Currency Agent");
        assert_eq!(words_from_type_name("Hello"), "Hello");
        assert_eq!(words_from_type_name("HTTPProbe"), "HTTP Probe");
        assert_eq!(words_from_type_name("report_writer"), "report writer");
    }

    #[test]
    fn title_is_first_paragraph_without_trailing_period() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = " Convert an amount"]),
            syn::parse_quote!(#[doc = " of money."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Details."]),
        ];
        let doc = read(&attrs);
        assert_eq!(doc.title.as_deref(), Some("Convert an amount of money"));
        assert_eq!(
            doc.description.as_deref(),
            Some("Convert an amount\nof money.\n\nDetails.")
        );
    }
}
