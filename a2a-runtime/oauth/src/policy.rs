//! Who may sign in, and which scopes each person may grant: the operator's access policy,
//! applied to the [`User`] a sign-in answers with. An allow-list of people (by subject or
//! email) and of email domains decides who gets a code at all; group rules decide which of the
//! agents' scopes a person's consent may include. Without rules everyone signed in may grant
//! every scope, as before.

use crate::OAuthError;
use crate::signin::User;

/// The access policy (empty: everyone, every scope).
#[derive(Debug, Clone, Default)]
pub struct AccessPolicy {
    users: Vec<String>,
    domains: Vec<String>,
    /// (group, scope pattern): members of the group may grant the scopes the pattern matches
    /// (`currency:*`, or one scope). The group `*` is every person admitted.
    group_scopes: Vec<(String, String)>,
}

impl AccessPolicy {
    /// Admits the person whose subject or email is `user` (case-insensitive for emails).
    #[must_use]
    pub fn allow_user(mut self, user: impl Into<String>) -> Self {
        self.users.push(user.into());
        self
    }

    /// Admits people whose email (verified, as the sign-in says) is at `domain`, or whose
    /// hosted domain (`hd`) is `domain`.
    #[must_use]
    pub fn allow_domain(mut self, domain: impl Into<String>) -> Self {
        let domain: String = domain.into();
        self.domains
            .push(domain.trim_start_matches('@').to_ascii_lowercase());
        self
    }

    /// Members of `group` may grant the scopes `pattern` matches: a scope, or a prefix ending
    /// in `*` (`currency:*`). Once any group rule is given, a person may grant only what the
    /// rules of their groups (and of the group `*`, everyone) allow.
    #[must_use]
    pub fn group_scopes(mut self, group: impl Into<String>, pattern: impl Into<String>) -> Self {
        self.group_scopes.push((group.into(), pattern.into()));
        self
    }

    /// Reads `GROUP=SCOPE` (as `--oauth-group-scopes` takes it).
    pub fn group_rule(self, rule: &str) -> Result<Self, String> {
        match rule.split_once('=') {
            Some((group, scope)) if !group.trim().is_empty() && !scope.trim().is_empty() => {
                Ok(self.group_scopes(group.trim(), scope.trim()))
            }
            _ => Err(format!(
                "`{rule}` is not GROUP=SCOPE (such as finance=currency:* or *=library:read)"
            )),
        }
    }

    /// Whether `user` may sign in here: refused with a message for the person, naming who is
    /// admitted, when the allow-lists leave them out.
    pub(crate) fn admit(&self, user: &User) -> Result<(), OAuthError> {
        if self.users.is_empty() && self.domains.is_empty() {
            return Ok(());
        }
        let email = user.email.as_deref().map(str::to_ascii_lowercase);
        let listed = self.users.iter().any(|allowed| {
            allowed == &user.subject
                || email
                    .as_deref()
                    .is_some_and(|email| allowed.eq_ignore_ascii_case(email))
        });
        let domain = email
            .as_deref()
            .and_then(|email| email.rsplit_once('@'))
            .map(|(_, domain)| domain.to_owned());
        let in_domain = self.domains.iter().any(|allowed| {
            domain.as_deref() == Some(allowed.as_str())
                || user
                    .hosted_domain
                    .as_deref()
                    .is_some_and(|hd| hd.eq_ignore_ascii_case(allowed))
        });
        if listed || in_domain {
            return Ok(());
        }
        let who = user.email.as_deref().unwrap_or(&user.subject);
        Err(OAuthError::AccessDenied(format!(
            "{who} may not sign in to these agents: this server admits {}. Ask its operator, \
             or sign in with another account",
            self.admitted()
        )))
    }

    /// Who the allow-lists admit, for a refusal.
    fn admitted(&self) -> String {
        let mut parts = Vec::new();
        if !self.users.is_empty() {
            parts.push(format!("the people {}", self.users.join(", ")));
        }
        if !self.domains.is_empty() {
            let domains: Vec<String> = self.domains.iter().map(|d| format!("@{d}")).collect();
            parts.push(format!("accounts at {}", domains.join(", ")));
        }
        parts.join(" and ")
    }

    /// Which of `scopes` `user` may grant.
    pub(crate) fn grantable(&self, user: &User, scopes: &[String]) -> Vec<String> {
        if self.group_scopes.is_empty() {
            return scopes.to_vec();
        }
        let patterns: Vec<&str> = self
            .group_scopes
            .iter()
            .filter(|(group, _)| group == "*" || user.groups.iter().any(|g| g == group))
            .map(|(_, pattern)| pattern.as_str())
            .collect();
        scopes
            .iter()
            .filter(|scope| patterns.iter().any(|pattern| matches(pattern, scope)))
            .cloned()
            .collect()
    }
}

/// Whether `pattern` (a scope, or a prefix ending in `*`) matches `scope`.
fn matches(pattern: &str, scope: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => scope.starts_with(prefix),
        None => pattern == scope,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn allow_lists_admit_by_subject_email_domain_or_hosted_domain() {
        let policy = AccessPolicy::default()
            .allow_user("u-7")
            .allow_user("Ann@Example.test")
            .allow_domain("@corp.example");
        let user = |subject: &str, email: Option<&str>| {
            let user = User::new(subject);
            match email {
                Some(email) => user.email(email),
                None => user,
            }
        };
        assert!(policy.admit(&user("u-7", None)).is_ok());
        assert!(policy.admit(&user("x", Some("ann@example.test"))).is_ok());
        assert!(policy.admit(&user("y", Some("bo@CORP.example"))).is_ok());
        assert!(
            policy
                .admit(&user("z", None).hosted_domain("corp.example"))
                .is_ok()
        );
        let refused = policy
            .admit(&user("eve", Some("eve@evil.test")))
            .unwrap_err();
        assert_eq!(refused.code(), "access_denied");
        assert!(refused.to_string().contains("eve@evil.test"), "{refused}");
        assert!(refused.to_string().contains("@corp.example"), "{refused}");
        assert!(AccessPolicy::default().admit(&user("anyone", None)).is_ok());
    }

    #[test]
    fn group_rules_limit_the_scopes_a_person_may_grant() {
        let all = scopes(&["currency:convert", "currency:rates", "library:read"]);
        let policy = AccessPolicy::default()
            .group_rule("finance=currency:*")
            .unwrap()
            .group_rule("*=library:read")
            .unwrap();
        let fiona = User::new("fiona").groups(["finance".to_owned()]);
        assert_eq!(policy.grantable(&fiona, &all), all);
        let sam = User::new("sam").groups(["staff".to_owned()]);
        assert_eq!(policy.grantable(&sam, &all), scopes(&["library:read"]));
        assert_eq!(AccessPolicy::default().grantable(&sam, &all), all);
        assert!(AccessPolicy::default().group_rule("finance").is_err());
    }
}
