//! Dropping secrets from trace metadata before it leaves the machine.
//!
//! Profiler traces often embed the environment they ran in (`metadata.system.env`
//! in the conformance traces holds `HF_TOKEN`), and exports are meant to be
//! shared. A value is replaced by [`REDACTED`] when its key looks like a secret:
//! an object member at any depth whose key contains one of [`SECRET_PATTERNS`]
//! (case-insensitive), or a `NAME=value` string (an environment listing) whose
//! NAME does. Everything else is left as it was.

use serde_json::Value;

/// What a secret value is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Substrings (upper case) of keys whose values are dropped. Broad on purpose:
/// losing `TOKENIZERS_PARALLELISM` from an export costs less than leaking a token.
pub const SECRET_PATTERNS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "AUTH",
    "KEY",
    "PRIVATE",
    "COOKIE",
];

/// Whether a key or variable name looks like it holds a secret.
pub fn looks_secret(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    SECRET_PATTERNS.iter().any(|p| upper.contains(p))
}

/// Replaces secret values inside `value` in place; returns whether anything
/// changed.
pub fn redact_json(value: &mut Value) -> bool {
    match value {
        Value::Object(members) => {
            let mut changed = false;
            for (key, member) in members.iter_mut() {
                if looks_secret(key) {
                    if !is_redacted(member) {
                        *member = Value::String(REDACTED.into());
                        changed = true;
                    }
                } else {
                    changed |= redact_json(member);
                }
            }
            changed
        }
        Value::Array(items) => {
            let mut changed = false;
            for item in items {
                changed |= redact_json(item);
            }
            changed
        }
        Value::String(text) => match redact_assignment(text) {
            Some(redacted) => {
                *text = redacted;
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// A top-level trace key and its value as JSON text, redacted: `None` when
/// nothing needed to change (the text is then kept byte for byte), else the new
/// JSON text. A secret-looking top-level key loses its whole value.
pub fn redact_meta(key: &str, json: &str) -> Option<String> {
    if looks_secret(key) {
        let redacted = Value::String(REDACTED.into()).to_string();
        return (json != redacted).then_some(redacted);
    }
    let mut value: Value = serde_json::from_str(json).ok()?;
    redact_json(&mut value).then(|| value.to_string())
}

fn is_redacted(value: &Value) -> bool {
    value.as_str() == Some(REDACTED)
}

/// `HF_TOKEN=abc` → `HF_TOKEN=<redacted>`; `None` when `text` is not an
/// assignment to a secret-looking name (or is redacted already).
fn redact_assignment(text: &str) -> Option<String> {
    let (name, value) = text.split_once('=')?;
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    (name_ok && looks_secret(name) && value != REDACTED).then(|| format!("{name}={REDACTED}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_keys_at_any_depth() {
        let mut v = json!({
            "system": {"env": {"HF_TOKEN": "hf_abc", "HOME": "/root", "aws_secret_access_key": "x",
                               "DB_PASSWORD": 3, "GITHUB_AUTH": {"user": "me"}, "KMP_INIT_AT_FORK": "FALSE"}},
            "devices": [{"name": "H100", "api_key": "k"}],
            "n": 1
        });
        assert!(redact_json(&mut v));
        assert_eq!(
            v,
            json!({
                "system": {"env": {"HF_TOKEN": REDACTED, "HOME": "/root", "aws_secret_access_key": REDACTED,
                                   "DB_PASSWORD": REDACTED, "GITHUB_AUTH": REDACTED, "KMP_INIT_AT_FORK": "FALSE"}},
                "devices": [{"name": "H100", "api_key": REDACTED}],
                "n": 1
            })
        );
        assert!(!redact_json(&mut v), "redacting twice changes nothing");
    }

    #[test]
    fn assignments_in_arrays() {
        let mut v = json!([
            "PATH=/usr/bin",
            "OPENAI_API_KEY=sk-1",
            "Credentials=a=b",
            "not an assignment",
            "--token hf_x",
            "x=1 SECRET=2"
        ]);
        assert!(redact_json(&mut v));
        assert_eq!(
            v,
            json!([
                "PATH=/usr/bin",
                "OPENAI_API_KEY=<redacted>",
                "Credentials=<redacted>",
                "not an assignment",
                "--token hf_x",
                "x=1 SECRET=2"
            ])
        );
    }

    #[test]
    fn meta_rows() {
        assert_eq!(redact_meta("schemaVersion", "1"), None);
        assert_eq!(
            redact_meta("deviceProperties", r#"[{"name": "H100"}]"#),
            None
        );
        assert_eq!(
            redact_meta("auth_token", r#""abc""#).as_deref(),
            Some(r#""<redacted>""#)
        );
        assert_eq!(redact_meta("auth_token", r#""<redacted>""#), None);
        assert_eq!(
            redact_meta("metadata", r#"{"env": {"HF_TOKEN": "hf_1"}}"#).as_deref(),
            Some(r#"{"env":{"HF_TOKEN":"<redacted>"}}"#)
        );
        assert_eq!(redact_meta("metadata", "not json"), None);
    }

    #[test]
    fn patterns_are_case_insensitive() {
        for key in [
            "token",
            "Secret",
            "PassWord",
            "x_credentials",
            "Authorization",
            "ssh-key",
        ] {
            assert!(looks_secret(key), "{key}");
        }
        for key in [
            "HOME",
            "PATH",
            "name",
            "numSms",
            "LD_LIBRARY_PATH",
            "with_stack",
        ] {
            assert!(!looks_secret(key), "{key}");
        }
    }
}
