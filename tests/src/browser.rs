//! A real browser (Debian's Chromium driven by playwright-core on the pinned Node), when the
//! machine has one.

/// The Node interpreter and the Chromium that the browser tests drive through Playwright, as
/// `scripts/test` installs them (`A2A_TEST_NODE`, `A2A_TEST_PLAYWRIGHT`, `A2A_TEST_CHROMIUM`), or
/// `None`, having said which is missing.
pub fn browser() -> Option<Browser> {
    let (Ok(node), Ok(_)) = (
        std::env::var("A2A_TEST_NODE"),
        std::env::var("A2A_TEST_PLAYWRIGHT"),
    ) else {
        println!("skipped: A2A_TEST_NODE and A2A_TEST_PLAYWRIGHT (scripts/test sets them)");
        return None;
    };
    let chromium =
        std::env::var("A2A_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        println!("skipped: no Chromium at {chromium} (.ci/run installs Debian's chromium)");
        return None;
    }
    Some(Browser { node, chromium })
}

/// Node and Chromium, found by [`browser`], to run the scripts of `tests/browser/` with.
#[derive(Debug, Clone)]
pub struct Browser {
    node: String,
    chromium: String,
}

impl Browser {
    /// Runs `tests/browser/{script}` with `args`: its standard output, once it has succeeded
    /// within three minutes (a failure panics with what the script said).
    pub async fn run(&self, script: &str, args: &[&str]) -> String {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("browser")
            .join(script);
        let mut command = tokio::process::Command::new(&self.node);
        command
            .arg(script)
            .args(args)
            .env("A2A_TEST_CHROMIUM", &self.chromium)
            .kill_on_drop(true);
        let output = tokio::time::timeout(std::time::Duration::from_secs(180), command.output())
            .await
            .expect("the browser finished in time")
            .expect("node runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "the browser test failed: {}{stdout}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }
}
