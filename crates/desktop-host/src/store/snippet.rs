//! Search-result snippets: a short window of a message's text around the first match, split into plain and
//! highlighted parts so the UI can render the highlight without parsing markup.

/// Characters of context kept before the first match.
const CONTEXT_BEFORE_CHARS: usize = 30;
/// Characters in the whole snippet window.
const WINDOW_CHARS: usize = 120;

/// A piece of a snippet; consecutive parts concatenate to the snippet text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SnippetPart {
    /// The text of this piece (line breaks shown as spaces; `…` where the window cuts the message).
    pub text: String,
    /// True when this piece matches one of the query's terms.
    pub highlighted: bool,
}

/// Builds the snippet of `text` for `terms` (matched case-insensitively, as the search does).
pub(crate) fn snippet(text: &str, terms: &[String]) -> Vec<SnippetPart> {
    let chars: Vec<char> = text.chars().collect();
    let folded: Vec<char> = chars.iter().map(|&character| fold(character)).collect();
    let mut matched = vec![false; chars.len()];
    for term in terms {
        let term: Vec<char> = term.chars().map(fold).collect();
        if term.is_empty() || term.len() > folded.len() {
            continue;
        }
        for start in 0..=folded.len() - term.len() {
            if folded[start..start + term.len()] == term[..] {
                matched[start..start + term.len()].fill(true);
            }
        }
    }
    let first_match = matched.iter().position(|&is_match| is_match).unwrap_or(0);
    let window_start = first_match.saturating_sub(CONTEXT_BEFORE_CHARS);
    let window_end = chars.len().min(window_start + WINDOW_CHARS);

    let mut parts: Vec<SnippetPart> = Vec::new();
    if window_start > 0 {
        parts.push(SnippetPart {
            text: "…".to_owned(),
            highlighted: false,
        });
    }
    for idx in window_start..window_end {
        let character = if chars[idx].is_whitespace() {
            ' '
        } else {
            chars[idx]
        };
        match parts.last_mut() {
            Some(part) if part.highlighted == matched[idx] => part.text.push(character),
            Some(_) | None => parts.push(SnippetPart {
                text: character.to_string(),
                highlighted: matched[idx],
            }),
        }
    }
    if window_end < chars.len() {
        match parts.last_mut() {
            Some(part) if !part.highlighted => part.text.push('…'),
            Some(_) | None => parts.push(SnippetPart {
                text: "…".to_owned(),
                highlighted: false,
            }),
        }
    }
    parts
}

/// Simple case folding, one character to one, so positions in the folded text are positions in the original.
fn fold(character: char) -> char {
    character.to_lowercase().next().unwrap_or(character)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn part(text: &str, highlighted: bool) -> SnippetPart {
        SnippetPart {
            text: text.to_owned(),
            highlighted,
        }
    }

    #[test]
    fn matches_are_highlighted_case_insensitively() {
        let parts = snippet(
            "The Kettle is on;\nthe kettle sings.",
            &["kettle".to_owned()],
        );
        assert_eq!(
            parts,
            vec![
                part("The ", false),
                part("Kettle", true),
                part(" is on; the ", false),
                part("kettle", true),
                part(" sings.", false)
            ]
        );
    }

    #[test]
    fn a_long_text_is_cut_around_the_first_match() {
        let text = format!("{}needle{}", "a".repeat(100), "b".repeat(200));
        let parts = snippet(&text, &["needle".to_owned()]);
        assert_eq!(
            parts,
            vec![
                part(&format!("…{}", "a".repeat(30)), false),
                part("needle", true),
                part(&format!("{}…", "b".repeat(120 - 36)), false),
            ]
        );
    }

    #[test]
    fn chinese_terms_of_one_character_are_found() {
        let parts = snippet("我们去图书馆借书", &["书".to_owned()]);
        assert_eq!(
            parts,
            vec![
                part("我们去图", false),
                part("书", true),
                part("馆借", false),
                part("书", true)
            ]
        );
    }
}
