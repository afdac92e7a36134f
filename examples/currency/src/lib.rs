//! A currency agent: several skills with structured input (a nested struct, an enum, an optional
//! field) and structured output, a long-running `report` skill that streams its sections with
//! progress and honours cancellation, and a multi-turn `exchange` skill that asks its client
//! questions (and, on the default durable store, carries on after a restart).

use std::collections::BTreeMap;

use a2a_runtime::prelude::*;

/// Converts money between currencies using fixed reference rates.
#[agent(
    name = "Currency Agent",
    version = "1.2.0",
    provider(organization = "Acme", url = "https://acme.example"),
    documentation_url = "https://acme.example/docs/currency"
)]
#[derive(Debug, Clone)]
pub struct Currency {
    /// Units of each currency per euro.
    per_euro: BTreeMap<Code, f64>,
}

impl Currency {
    /// The agent with its built-in reference rates.
    pub fn with_reference_rates() -> Self {
        let per_euro = [
            (Code::EUR, 1.0),
            (Code::USD, 1.08),
            (Code::GBP, 0.85),
            (Code::JPY, 162.5),
            (Code::CHF, 0.95),
        ];
        Self {
            per_euro: per_euro.into_iter().collect(),
        }
    }

    fn rate(&self, from: Code, to: Code) -> Result<f64, SkillError> {
        let unit = |code: Code| {
            self.per_euro
                .get(&code)
                .copied()
                .ok_or_else(|| SkillError::new(format!("no rate for {code:?}")))
        };
        Ok(unit(to)? / unit(from)?)
    }
}

/// An ISO 4217 currency code.
#[allow(clippy::upper_case_acronyms)]
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Code {
    /// Euro.
    EUR,
    /// US dollar.
    USD,
    /// Pound sterling.
    GBP,
    /// Japanese yen.
    JPY,
    /// Swiss franc.
    CHF,
}

impl std::str::FromStr for Code {
    type Err = String;

    /// Reads a code in any case: `usd` is `USD`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.to_ascii_uppercase().as_str() {
            "EUR" => Ok(Self::EUR),
            "USD" => Ok(Self::USD),
            "GBP" => Ok(Self::GBP),
            "JPY" => Ok(Self::JPY),
            "CHF" => Ok(Self::CHF),
            _ => Err(format!(
                "`{text}` is not a supported currency; use EUR, USD, GBP, JPY or CHF"
            )),
        }
    }
}

/// An amount in a currency.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct Money {
    /// The amount; must not be negative.
    pub amount: f64,
    /// Its currency.
    pub currency: Code,
}

/// The result of a conversion.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Quote {
    /// The converted amount.
    pub amount: f64,
    /// The target currency.
    pub currency: Code,
    /// Units of the target currency per unit of the source currency.
    pub rate: f64,
}

/// One reference rate.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Rate {
    /// The currency.
    pub currency: Code,
    /// Units of it per unit of the base currency.
    pub rate: f64,
}

/// Convert an amount of money.
///
/// Uses the agent's reference rates; amounts are rounded to cents unless `whole` is set.
#[skill(
    agent = Currency,
    tags = ["finance", "fx"],
    examples = ["how much is 10 USD in EUR?"],
    read_only = true,
    idempotent = true,
    default
)]
pub async fn convert(
    agent: State<Currency>,
    /// The money to convert.
    money: Money,
    /// The currency to convert into.
    to: Code,
    /// Round to whole units instead of cents.
    whole: Option<bool>,
) -> Result<Quote, SkillError> {
    if !(money.amount.is_finite() && money.amount >= 0.0) {
        return Err(SkillError::invalid_input(format!(
            "money.amount must be a non-negative number, got {}",
            money.amount
        )));
    }
    let rate = agent.rate(money.currency, to)?;
    let scale = if whole.unwrap_or(false) { 1.0 } else { 100.0 };
    Ok(Quote {
        amount: (money.amount * rate * scale).round() / scale,
        currency: to,
        rate,
    })
}

/// List the reference rates.
///
/// Every supported currency with its rate against `base` (EUR when omitted).
#[skill(agent = Currency, tags = ["finance"], read_only = true)]
pub async fn rates(
    agent: State<Currency>,
    /// The base currency; EUR when omitted.
    base: Option<Code>,
) -> Result<Vec<Rate>, SkillError> {
    agent.rates_against(base.unwrap_or(Code::EUR))
}

/// Draw the reference rates as a bar chart.
///
/// An SVG image with one bar per currency, its value against `base` (EUR when omitted) on a
/// logarithmic scale so yen and pounds fit one chart.
#[skill(agent = Currency, tags = ["finance", "chart"], read_only = true)]
pub async fn chart(
    agent: State<Currency>,
    /// The base currency; EUR when omitted.
    base: Option<Code>,
) -> Result<Vec<Part>, SkillError> {
    let base = base.unwrap_or(Code::EUR);
    let (bar, gap, height) = (60.0, 20.0, 200.0);
    let rates = agent
        .per_euro
        .keys()
        .map(|&code| Ok((code, agent.rate(base, code)?)))
        .collect::<Result<Vec<_>, SkillError>>()?;
    let top = rates.iter().map(|(_, r)| r.log10()).fold(1.0_f64, f64::max) + 1.0;
    let width = (bar + gap) * rates.len() as f64 + gap;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\">\n",
        height + 40.0
    );
    for (i, (code, rate)) in rates.iter().enumerate() {
        // Bars start at 0.01 (log −2) so rates below one still show.
        let h = ((rate.log10() + 2.0) / (top + 2.0) * height).max(1.0);
        let x = gap + (bar + gap) * i as f64;
        svg.push_str(&format!(
            "  <rect x=\"{x}\" y=\"{:.1}\" width=\"{bar}\" height=\"{h:.1}\" fill=\"#3b7dd8\"/>\n  \
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{code:?} {rate:.3}</text>\n",
            height - h,
            x + bar / 2.0,
            height + 20.0,
        ));
    }
    svg.push_str("</svg>\n");
    let mut image = Part::raw(svg.into_bytes(), "image/svg+xml");
    image.filename = Some(format!("rates-{base:?}.svg"));
    Ok(vec![image])
}

/// Tell whether a currency is supported.
#[skill(agent = Currency, id = "is-supported", tags = ["finance"])]
pub async fn is_supported(
    agent: State<Currency>,
    /// An ISO 4217 code such as `CHF`.
    code: String,
) -> String {
    let known = agent
        .per_euro
        .keys()
        .any(|c| format!("{c:?}").eq_ignore_ascii_case(code.trim()));
    if known {
        format!("{} is supported", code.trim().to_uppercase())
    } else {
        format!("{} is not supported", code.trim())
    }
}

/// Write a market report on some currencies.
///
/// Streams one Markdown section per currency as soon as it is written, reports progress, and
/// stops promptly when cancelled. The report is one artifact, `market-report`.
#[skill(
    agent = Currency,
    tags = ["finance", "report"],
    examples = ["write a market report on USD and JPY"],
    read_only = true
)]
pub async fn report(
    agent: State<Currency>,
    ctx: TaskContext,
    /// The currencies to cover; every supported one when omitted.
    currencies: Option<Vec<Code>>,
    /// Research time per section in milliseconds (default 400).
    pace_ms: Option<u64>,
) -> Result<String, SkillError> {
    let codes = currencies.unwrap_or_else(|| agent.per_euro.keys().copied().collect());
    if codes.is_empty() {
        return Err(SkillError::invalid_input(
            "currencies must name at least one currency",
        ));
    }
    let pace = std::time::Duration::from_millis(pace_ms.unwrap_or(400));
    let total = codes.len() as u64;
    let mut report = ctx.artifact_writer("market-report");
    report.append("# Market report\n\n");
    for (done, code) in (0..).zip(&codes) {
        ctx.progress_with(done, total, format!("Researching {code:?}"));
        // Stand-in for real research; a cancel interrupts it at once.
        a2a_runtime::tokio::select! {
            () = a2a_runtime::tokio::time::sleep(pace) => {}
            () = ctx.cancelled() => return Err(SkillError::new("the report was cancelled")),
        }
        report.append(agent.section(*code)?);
        // Also in the server's log, and sent to MCP clients that asked for log messages.
        a2a_runtime::tracing::info!(currency = ?code, "section written");
    }
    report.finish();
    ctx.progress_with(total, total, "Report complete");
    Ok(format!("Market report on {total} currencies"))
}

/// A yes-or-no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Confirm {
    /// Go ahead.
    Yes,
    /// Do not.
    No,
}

/// A booked exchange.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Exchange {
    /// The account debited.
    pub account: String,
    /// What was paid.
    pub paid: Money,
    /// What was bought, at which rate.
    pub bought: Quote,
}

/// Book a currency exchange.
///
/// Quotes the exchange (the quote is the `quote` artifact), asks which account to debit, then
/// asks to confirm before booking it.
#[skill(agent = Currency, tags = ["finance", "fx"], examples = ["exchange 100 USD into CHF"])]
pub async fn exchange(
    agent: State<Currency>,
    ctx: TaskContext,
    /// The money to exchange.
    money: Money,
    /// The currency to buy.
    to: Code,
) -> Result<Exchange, SkillError> {
    if !(money.amount.is_finite() && money.amount > 0.0) {
        return Err(SkillError::invalid_input(format!(
            "money.amount must be a positive number, got {}",
            money.amount
        )));
    }
    let rate = agent.rate(money.currency, to)?;
    let bought = Quote {
        amount: (money.amount * rate * 100.0).round() / 100.0,
        currency: to,
        rate,
    };
    let quote = format!(
        "{:.2} {:?} buys {:.2} {to:?} at {rate:.4}",
        money.amount, money.currency, bought.amount
    );
    ctx.artifact(Artifact::new(vec![Part::text(quote.clone())]).with_name("quote"));
    let account = ctx
        .ask::<String>("Which account should be debited?")
        .await?;
    let confirm = ctx
        .ask::<Confirm>(format!(
            "{quote}, debited from {account}. Book it? (yes/no)"
        ))
        .await?;
    if confirm == Confirm::No {
        return Err(SkillError::new("the exchange was not booked"));
    }
    Ok(Exchange {
        account,
        paid: money,
        bought,
    })
}

impl Currency {
    /// One report section: the currency against the euro and every other currency.
    fn section(&self, code: Code) -> Result<String, SkillError> {
        let mut section = format!(
            "## {code:?}\n\n1 EUR = {:.4} {code:?}.\n\n",
            self.rate(Code::EUR, code)?
        );
        for &other in self.per_euro.keys().filter(|&&c| c != code) {
            section.push_str(&format!(
                "- 1 {code:?} = {:.4} {other:?}\n",
                self.rate(code, other)?
            ));
        }
        section.push('\n');
        Ok(section)
    }
}

impl Currency {
    /// Every reference rate against `base`.
    fn rates_against(&self, base: Code) -> Result<Vec<Rate>, SkillError> {
        self.per_euro
            .keys()
            .map(|&currency| {
                Ok(Rate {
                    currency,
                    rate: self.rate(base, currency)?,
                })
            })
            .collect()
    }
}

/// The reference rates against the euro.
#[resource(agent = Currency, uri = "currency://rates", title = "Reference rates")]
pub async fn rate_table(agent: State<Currency>) -> Result<Json<Vec<Rate>>, SkillError> {
    agent.rates_against(Code::EUR).map(Json)
}

/// The reference rates against one base currency.
#[resource(agent = Currency, uri = "currency://rates/{base}", title = "Rates against a currency")]
pub async fn rates_against(
    agent: State<Currency>,
    /// The base currency (an ISO 4217 code).
    base: Code,
) -> Result<Json<Vec<Rate>>, SkillError> {
    agent.rates_against(base).map(Json)
}

/// The tones `explain_conversion` suggests, those starting with what was typed; a large
/// amount also suggests a formal one.
async fn suggest_tone(request: Completion) -> Vec<String> {
    let typed = request.value().to_lowercase();
    let large = request
        .argument("amount")
        .and_then(|amount| amount.parse::<f64>().ok())
        .is_some_and(|amount| amount >= 10_000.0);
    let tones = ["plain", "friendly", "brief"]
        .into_iter()
        .chain(large.then_some("formal"));
    tones
        .filter(|tone| tone.starts_with(&typed))
        .map(str::to_owned)
        .collect()
}

/// Ask the model to convert an amount and explain the rate.
#[prompt(agent = Currency)]
pub async fn explain_conversion(
    /// How much money.
    amount: f64,
    /// The currency it is in.
    from: Code,
    /// The currency to convert it into.
    to: Code,
    /// Words to use (plain when omitted).
    #[arg(complete = suggest_tone)]
    tone: Option<String>,
) -> String {
    let tone = tone.unwrap_or_else(|| "plain".into());
    format!(
        "Convert {amount} {from:?} into {to:?} with the currency agent's `convert` tool, then \
         explain the rate it used in {tone} words."
    )
}
