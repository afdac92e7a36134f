//! The pages a person sees: the consent page (who asks, where the answer goes, which scopes)
//! and the error page for requests that cannot be sent back to the client. Server-rendered,
//! no scripts, no external assets; a content security policy lets the page load its own
//! style only and submit only to this server and the client's redirect origin.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use base64::Engine as _;

use crate::web::escape;

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f6;color:#1b1b1f}\
main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.5rem;\
box-shadow:0 1px 3px #0003}h1{font-size:1.4rem;margin-top:0}dt{font-weight:600;margin-top:.6rem}\
dd{margin:0;overflow-wrap:anywhere}.note{color:#55555d;font-size:.9rem}\
.warn{background:#fff4d6;border-left:4px solid #a86a00;padding:.5rem .75rem}\
fieldset{border:1px solid #c8c8d0;border-radius:.4rem;margin:1rem 0}label{display:block;padding:.2rem 0}\
.actions{display:flex;gap:.75rem;flex-wrap:wrap}button{font:inherit;padding:.55rem 1.2rem;\
border-radius:.4rem;border:1px solid #1d4ed8;cursor:pointer}\
button[value=approve]{background:#1d4ed8;color:#fff}button[value=deny]{background:#fff;color:#1d4ed8}\
button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}\
@media (max-width:36rem){main{margin:0;border-radius:0}}";

/// Where the answer goes, which the person is warned about when it is their own machine.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Destination {
    /// A web site.
    Web,
    /// A program listening on the person's computer (a loopback address).
    Loopback,
    /// The app that claimed a private-use URI scheme on the person's computer.
    App,
}

/// What the consent page shows and submits.
pub(crate) struct Consent<'a> {
    pub(crate) client_name: Option<&'a str>,
    pub(crate) client_id: &'a str,
    pub(crate) redirect_uri: &'a str,
    pub(crate) redirect_host: &'a str,
    pub(crate) destination: Destination,
    pub(crate) user: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) scopes: &'a [String],
    /// Scopes asked for that this person may not grant (the operator's policy).
    pub(crate) withheld: &'a [String],
    pub(crate) action: &'a str,
    pub(crate) request: &'a str,
    pub(crate) csrf: &'a str,
    /// The redirect URI's origin, which the form's answer is sent on to.
    pub(crate) redirect_origin: &'a str,
}

/// The consent page.
pub(crate) fn consent(page: &Consent<'_>) -> Response {
    let name = page.client_name.unwrap_or("An application");
    let scopes: String = if page.scopes.is_empty() {
        "<p>No particular permissions: the tools that need none.</p>".to_owned()
    } else {
        page.scopes
            .iter()
            .map(|scope| {
                let scope = escape(scope);
                format!(
                    "<label><input type=\"checkbox\" name=\"scope\" value=\"{scope}\" checked> \
                     <code>{scope}</code></label>"
                )
            })
            .collect()
    };
    let withheld = if page.withheld.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = page
            .withheld
            .iter()
            .map(|scope| format!("<code>{}</code>", escape(scope)))
            .collect();
        format!(
            "<p class=\"note\">Also asked for, which this server does not let you grant: {}.</p>",
            names.join(", ")
        )
    };
    let local = match page.destination {
        Destination::Web => "",
        Destination::Loopback => {
            "<p class=\"warn\" role=\"note\">This application runs on your own computer (its \
             answer goes to a local address). Allow it only if you started it yourself just now.</p>"
        }
        Destination::App => {
            "<p class=\"warn\" role=\"note\">The answer goes to an app on your own computer \
             (the one that opens links of this scheme). Allow it only if you started connecting \
             from that app just now.</p>"
        }
    };
    let body = format!(
        "<main><h1>Allow {name} to use your agents?</h1>\
         <p class=\"note\">The application calls itself “{name}”; nothing has verified that name.</p>\
         <dl><dt>Signed in as</dt><dd>{user}</dd>\
         <dt>Application</dt><dd><code>{client_id}</code></dd>\
         <dt>Sends you back to</dt><dd><strong>{host}</strong> <span class=\"note\">({redirect})</span></dd>\
         <dt>Access to</dt><dd><code>{resource}</code></dd></dl>{local}\
         <form method=\"post\" action=\"{action}\">\
         <input type=\"hidden\" name=\"request\" value=\"{request}\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
         <fieldset><legend>Permissions</legend>{scopes}{withheld}</fieldset>\
         <div class=\"actions\"><button type=\"submit\" name=\"decision\" value=\"approve\">Allow</button>\
         <button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></div></form></main>",
        name = escape(name),
        user = escape(page.user),
        client_id = escape(page.client_id),
        host = escape(page.redirect_host),
        redirect = escape(page.redirect_uri),
        resource = escape(page.resource),
        action = escape(page.action),
        request = escape(page.request),
        csrf = escape(page.csrf),
    );
    html(
        StatusCode::OK,
        &format!("Allow {}?", escape(name)),
        &body,
        page.redirect_origin,
    )
}

/// The page for an authorization request that cannot be answered at the client's redirect
/// URI (an unknown client, a redirect URI it did not register, an expired request).
pub(crate) fn error(status: StatusCode, code: &str, description: &str) -> Response {
    let body = format!(
        "<main><h1>This authorization cannot go on</h1><p>{}</p>\
         <p class=\"note\">Error <code>{}</code>. Go back to the application and connect again.</p></main>",
        escape(description),
        escape(code)
    );
    html(status, "Authorization error", &body, "")
}

fn html(status: StatusCode, title: &str, body: &str, form_origin: &str) -> Response {
    let document = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>"
    );
    let style_hash = base64::engine::general_purpose::STANDARD
        .encode(<sha2::Sha256 as sha2::Digest>::digest(STYLE.as_bytes()));
    // Chrome checks `form-action` on the redirect that follows a submission too, so the
    // client's redirect origin is allowed beside this server.
    let policy = format!(
        "default-src 'none'; style-src 'sha256-{style_hash}'; form-action 'self' {form_origin}; \
         frame-ancestors 'none'; base-uri 'none'"
    );
    let mut response = (status, Html(document)).into_response();
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(policy.trim()) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Not `no-referrer`: that makes browsers send `Origin: null` on the form's POST, which the
    // server's browser guard refuses. Other sites still learn nothing of the page's URL.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
