//! A table-booking agent whose skills talk back: `book_table` asks for the date when the request
//! has none, checks it, and asks for confirmation before booking; `cancel_booking` waits for the
//! caller to sign in first.

use std::collections::BTreeMap;
use std::sync::Mutex;

use a2a_runtime::axum::Router;
use a2a_runtime::axum::extract::Path;
use a2a_runtime::axum::http::StatusCode;
use a2a_runtime::axum::routing::get;
use a2a_runtime::prelude::*;
use a2a_runtime::{AgentServer, server::TasksError};
use chrono::NaiveDate;

/// Books restaurant tables, asking for whatever the request left out.
#[agent(
    name = "Booking Agent",
    version = "0.1.0",
    provider(organization = "Acme", url = "https://acme.example")
)]
#[derive(Debug, Default)]
pub struct Booking {
    bookings: Mutex<Bookings>,
}

#[derive(Debug, Default)]
struct Bookings {
    issued: u32,
    by_reference: BTreeMap<String, Reservation>,
}

impl Booking {
    fn lock(&self) -> std::sync::MutexGuard<'_, Bookings> {
        self.bookings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The agent's server: A2A and MCP, plus `GET /signin/{task}`, a demo stand-in for an OAuth
/// callback that completes the sign-in `cancel_booking` waits for.
pub fn server() -> AgentServer {
    let server = Booking::default().server();
    let tasks = server.tasks();
    // Whoever opens the link counts as signed in. A real application verifies the identity
    // provider's response before calling `authorize`.
    let sign_in = get(move |Path(task): Path<String>| async move {
        let credential = a2a_runtime::serde_json::json!({ "user": "demo" });
        match tasks
            .authorize(&task, &a2a_runtime::auth::Caller::anonymous(), credential)
            .await
        {
            Ok(()) => (
                StatusCode::OK,
                "Signed in; the task continues.\n".to_owned(),
            ),
            Err(error @ TasksError::NotFound(_)) => (StatusCode::NOT_FOUND, format!("{error}\n")),
            Err(error) => (StatusCode::CONFLICT, format!("{error}\n")),
        }
    });
    server.routes(Router::new().route("/signin/{task}", sign_in))
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

/// The outcome of a booking request.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Reservation {
    /// The booking reference; absent when nothing was booked.
    pub reference: Option<String>,
    /// The restaurant.
    pub restaurant: String,
    /// Party size.
    pub guests: u32,
    /// The day booked.
    pub date: NaiveDate,
    /// Whether the table is booked.
    pub confirmed: bool,
}

/// Books a table. Asks for the date if it is missing or already past, then asks for
/// confirmation before booking.
#[skill(
    agent = Booking,
    default,
    tags = ["booking", "multi-turn"],
    examples = ["Book a table for 4 at Luigi's"]
)]
async fn book_table(
    state: State<Booking>,
    /// The restaurant's name.
    restaurant: String,
    /// How many people.
    guests: u32,
    /// The day, as YYYY-MM-DD; asked for when missing.
    date: Option<NaiveDate>,
    ctx: TaskContext,
) -> Result<Reservation, SkillError> {
    if guests == 0 || guests > 20 {
        return Err(SkillError::invalid_input(
            "guests: a table seats 1 to 20 people",
        ));
    }
    let today = chrono::Utc::now().date_naive();
    let mut date = match date {
        Some(date) => date,
        None => {
            ctx.ask::<NaiveDate>("Which day should I book? (YYYY-MM-DD)")
                .await?
        }
    };
    while date < today {
        date = ctx
            .ask::<NaiveDate>(format!(
                "{date} has already passed. Which day from {today} on? (YYYY-MM-DD)"
            ))
            .await?;
    }
    let confirm = ctx
        .ask::<Confirm>(format!(
            "Book a table for {guests} at {restaurant} on {date}? (yes/no)"
        ))
        .await?;
    let mut reservation = Reservation {
        reference: None,
        restaurant,
        guests,
        date,
        confirmed: confirm == Confirm::Yes,
    };
    if reservation.confirmed {
        let mut bookings = state.lock();
        bookings.issued += 1;
        let reference = format!("BK-{:04}", bookings.issued);
        reservation.reference = Some(reference.clone());
        bookings.by_reference.insert(reference, reservation.clone());
    }
    Ok(reservation)
}

/// Cancels a booking. The caller must sign in first: the task waits in auth-required until the
/// sign-in page reports back.
#[skill(agent = Booking, tags = ["booking"], examples = ["Cancel BK-0001"])]
async fn cancel_booking(
    state: State<Booking>,
    /// The booking reference, such as BK-0001.
    reference: String,
    ctx: TaskContext,
) -> Result<String, SkillError> {
    if !state.lock().by_reference.contains_key(&reference) {
        return Err(SkillError::invalid_input(format!(
            "reference: no booking `{reference}`"
        )));
    }
    let credential = ctx
        .require_auth(format!(
            "Sign in to cancel {reference}: open /signin/{} on this agent's host.",
            ctx.task_id()
        ))
        .await?;
    let user = credential
        .get("user")
        .and_then(|u| u.as_str())
        .unwrap_or("someone")
        .to_owned();
    state.lock().by_reference.remove(&reference);
    Ok(format!("{reference} cancelled for {user}."))
}
