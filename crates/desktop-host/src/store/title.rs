//! Conversation titles made from the first user message.

/// The longest automatic title, in characters, before the ellipsis.
const TITLE_MAX_CHARS: usize = 48;

/// A title from a message's text: whitespace collapsed to single spaces, cut to at most 48 characters (at a
/// word boundary when the text has spaces in the last third, as English does; anywhere in Chinese), with `…`
/// appended when cut. `None` when the text is blank.
pub fn title_from_text(text: &str) -> Option<String> {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        return None;
    }
    if collapsed.chars().count() <= TITLE_MAX_CHARS {
        return Some(collapsed);
    }
    let cut_at = collapsed
        .char_indices()
        .nth(TITLE_MAX_CHARS)
        .map_or(collapsed.len(), |(idx, _)| idx);
    let head = &collapsed[..cut_at];
    // Prefer ending at a space when that keeps at least two thirds of the allowed length.
    let min_keep = head
        .char_indices()
        .nth(TITLE_MAX_CHARS * 2 / 3)
        .map_or(head.len(), |(idx, _)| idx);
    let head = match head.rfind(' ') {
        Some(space_idx) if space_idx >= min_keep => &head[..space_idx],
        Some(_) | None => head,
    };
    Some(format!("{}…", head.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_with_whitespace_collapsed() {
        assert_eq!(
            title_from_text("  Say\n hello.  ").as_deref(),
            Some("Say hello.")
        );
    }

    #[test]
    fn blank_text_gives_no_title() {
        assert_eq!(title_from_text(" \n\t"), None);
    }

    #[test]
    fn long_english_text_is_cut_at_a_word() {
        let title = title_from_text(
            "Please summarise the quarterly report in the Documents folder and list the open questions",
        );
        assert_eq!(
            title.as_deref(),
            Some("Please summarise the quarterly report in the…")
        );
    }

    #[test]
    fn long_chinese_text_is_cut_by_characters() {
        let text = "请帮我总结一下文档文件夹里的季度报告，并列出所有尚未解决的问题，最好按照优先级排序，谢谢你的帮助。明天上午开会之前需要准备好。";
        let title = title_from_text(text).unwrap();
        assert_eq!(title.chars().count(), TITLE_MAX_CHARS + 1);
        assert!(title.ends_with('…'));
        assert!(text.starts_with(title.trim_end_matches('…')));
    }
}
