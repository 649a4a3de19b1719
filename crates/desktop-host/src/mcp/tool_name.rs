//! The names the model calls MCP tools by: `<server>__<tool>`, each part with every character outside
//! `[A-Za-z0-9_-]` replaced by `_` (providers accept only those), the whole at most [`MODEL_TOOL_NAME_MAX`]
//! characters. A name that would be too long, or that another tool already has, ends in a stable short hash of
//! the server's and the tool's real names instead.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

/// The longest tool name providers accept.
pub const MODEL_TOOL_NAME_MAX: usize = 64;

/// `<server>__<tool>`, made safe for providers; see the module doc.
pub fn model_tool_name(server: &str, tool: &str) -> String {
    let name = format!("{}__{}", sanitize(server), sanitize(tool));
    if name.len() <= MODEL_TOOL_NAME_MAX {
        name
    } else {
        hashed(&name, server, tool)
    }
}

/// Hands out unique model names for the tools of one agent.
#[derive(Debug, Default)]
pub struct ToolNames {
    taken: HashSet<String>,
}

impl ToolNames {
    /// Names taken already (the built-in tools').
    pub fn with_taken<'a>(names: impl IntoIterator<Item = &'a str>) -> ToolNames {
        ToolNames {
            taken: names.into_iter().map(str::to_owned).collect(),
        }
    }

    /// The model name of `server`'s `tool`: [`model_tool_name`], or a hashed form when that is taken.
    pub fn assign(&mut self, server: &str, tool: &str) -> String {
        let mut name = model_tool_name(server, tool);
        if self.taken.contains(&name) {
            name = hashed(&name, server, tool);
        }
        self.taken.insert(name.clone());
        name
    }
}

fn sanitize(part: &str) -> String {
    part.chars()
        .map(|character| {
            if character.is_ascii_alphanumeric() || character == '_' || character == '-' {
                character
            } else {
                '_'
            }
        })
        .collect()
}

/// `name` cut to leave room for `_` and 8 hex digits of a hash of the real names.
fn hashed(name: &str, server: &str, tool: &str) -> String {
    let digest = Sha256::digest(format!("{server}\u{0}{tool}").as_bytes());
    let suffix: String = digest
        .iter()
        .take(4)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let keep = MODEL_TOOL_NAME_MAX - suffix.len() - 1;
    let head: String = name.chars().take(keep).collect();
    format!("{head}_{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_safe_characters_and_replace_the_others() {
        assert_eq!(
            model_tool_name("everything", "get-sum"),
            "everything__get-sum"
        );
        assert_eq!(
            model_tool_name("my files", "fs.read/text"),
            "my_files__fs_read_text"
        );
    }

    #[test]
    fn a_long_or_taken_name_gets_a_stable_hash_and_stays_within_the_limit() {
        let long = model_tool_name(&"s".repeat(40), &"t".repeat(40));
        assert_eq!(long.len(), MODEL_TOOL_NAME_MAX);
        assert_eq!(
            long,
            model_tool_name(&"s".repeat(40), &"t".repeat(40)),
            "stable"
        );

        let mut names = ToolNames::default();
        let first = names.assign("a.b", "c");
        let second = names.assign("a_b", "c");
        assert_eq!(first, "a_b__c");
        assert_ne!(second, first, "two servers whose names sanitise alike");
        assert!(second.starts_with("a_b__c_") && second.len() <= MODEL_TOOL_NAME_MAX);
    }
}
