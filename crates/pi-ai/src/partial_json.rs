//! Tolerant parsing of streamed tool-call arguments (pi's `parseStreamingJson`, spec 4.5).
//!
//! Providers stream tool arguments as raw JSON text; after every chunk the block's `arguments` hold the best
//! parse of the text so far. The tolerant parser follows the `partial-json` library that pi uses with every
//! partial kind allowed, including its quirks (index arithmetic included), so the same text yields the same
//! value as in pi.

use serde_json::{Map, Value};

/// Parses possibly incomplete JSON text; never fails.
///
/// 1. empty or whitespace-only ⇒ `{}`;
/// 2. strict parse, else strict parse of [`repair_json`]'s output (when repair changed the text) — returned as is;
/// 3. else tolerant partial parse of the text (`null` ⇒ `{}`); 4. else of the repaired text; 5. else `{}`.
pub fn parse_streaming_json(text: &str) -> Value {
    if text.trim().is_empty() {
        return empty_object();
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return value;
    }
    let repaired = repair_json(text);
    if repaired != text {
        if let Ok(value) = serde_json::from_str::<Value>(&repaired) {
            return value;
        }
    }
    for candidate in [text, repaired.as_str()] {
        if let Ok(value) = parse_partial(candidate) {
            return if value.is_null() {
                empty_object()
            } else {
                value
            };
        }
    }
    empty_object()
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// Repairs JSON text inside string literals only: raw control characters are escaped (`\b \f \n \r \t` by
/// name, others as `\u00XX`); a backslash followed by one of `" \ / b f n r t u` is kept with that character;
/// any other backslash (including a trailing one) is doubled. Text outside strings is copied unchanged.
pub fn repair_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_string = false;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if !in_string {
            if ch == '"' {
                in_string = true;
            }
            out.push(ch);
            continue;
        }
        match ch {
            '"' => {
                in_string = false;
                out.push(ch);
            }
            '\\' => match chars.peek().copied() {
                Some(next @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                    chars.next();
                    out.push('\\');
                    out.push(next);
                }
                Some(_) | None => out.push_str("\\\\"),
            },
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if u32::from(control) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(control)))
            }
            other => out.push(other),
        }
    }
    out
}

/// Why the tolerant parse gave up (the library distinguishes incomplete from malformed; both fail here).
#[derive(Debug)]
struct PartialParseError;

type Parsed = Result<Value, PartialParseError>;

/// The `partial-json` parser with every partial kind allowed.
fn parse_partial(text: &str) -> Result<Value, PartialParseError> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.is_empty() {
        return Err(PartialParseError);
    }
    let mut parser = PartialParser { chars, index: 0 };
    parser.parse_any()
}

struct PartialParser {
    chars: Vec<char>,
    index: usize,
}

impl PartialParser {
    fn len(&self) -> usize {
        self.chars.len()
    }

    fn at(&self, index: usize) -> Option<char> {
        self.chars.get(index).copied()
    }

    /// JavaScript `substring(start, end)`: clamps to the text and swaps reversed bounds.
    fn substring(&self, start: isize, end: isize) -> String {
        let clamp = |bound: isize| usize::try_from(bound.max(0)).unwrap_or(0).min(self.len());
        let (mut from, mut to) = (clamp(start), clamp(end));
        if from > to {
            std::mem::swap(&mut from, &mut to);
        }
        self.chars
            .get(from..to)
            .map(|slice| slice.iter().collect())
            .unwrap_or_default()
    }

    /// JavaScript `lastIndexOf(ch)` over the whole text; -1 when absent.
    fn last_index_of(&self, needle: char) -> isize {
        self.chars
            .iter()
            .rposition(|ch| *ch == needle)
            .map_or(-1, |pos| pos as isize)
    }

    fn skip_blank(&mut self) {
        while self
            .at(self.index)
            .is_some_and(|ch| matches!(ch, ' ' | '\n' | '\r' | '\t'))
        {
            self.index += 1;
        }
    }

    /// A literal or a prefix of it that runs to the end of the text.
    fn literal(&self, word: &str) -> bool {
        let word_len = word.chars().count();
        let ahead = self.substring(self.index as isize, (self.index + word_len) as isize);
        if ahead == word {
            return true;
        }
        let remaining = self.len() - self.index;
        // A lone "-" is not taken for a prefix of "-Infinity" (it makes the number parse fail instead).
        if word.starts_with('-') && remaining <= 1 {
            return false;
        }
        let rest = self.substring(self.index as isize, self.len() as isize);
        remaining < word_len && word.starts_with(&rest)
    }

    fn parse_any(&mut self) -> Parsed {
        self.skip_blank();
        let Some(ch) = self.at(self.index) else {
            return Err(PartialParseError);
        };
        match ch {
            '"' => return self.parse_str(),
            '{' => return self.parse_obj(),
            '[' => return self.parse_arr(),
            _ => {}
        }
        // JSON has no NaN/Infinity; JavaScript serializes them as null.
        let literals: [(&str, Value); 6] = [
            ("null", Value::Null),
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("Infinity", Value::Null),
            ("-Infinity", Value::Null),
            ("NaN", Value::Null),
        ];
        for (word, value) in literals {
            if self.literal(word) {
                self.index += word.chars().count();
                return Ok(value);
            }
        }
        self.parse_num()
    }

    fn parse_str(&mut self) -> Parsed {
        let start = self.index;
        let mut escape = false;
        self.index += 1;
        while self.index < self.len()
            && (self.at(self.index) != Some('"')
                || (escape && self.at(self.index - 1) == Some('\\')))
        {
            escape = if self.at(self.index) == Some('\\') {
                !escape
            } else {
                false
            };
            self.index += 1;
        }
        if self.at(self.index) == Some('"') {
            self.index += 1;
            let end = self.index as isize - isize::from(escape);
            return strict(&self.substring(start as isize, end));
        }
        let end = self.index as isize - isize::from(escape);
        let candidate = self.substring(start as isize, end) + "\"";
        strict(&candidate)
            .or_else(|_| strict(&(self.substring(start as isize, self.last_index_of('\\')) + "\"")))
    }

    fn parse_obj(&mut self) -> Parsed {
        self.index += 1;
        self.skip_blank();
        let mut object = Map::new();
        while self.at(self.index) != Some('}') {
            self.skip_blank();
            if self.index >= self.len() {
                return Ok(Value::Object(object));
            }
            let key = match self.parse_str() {
                Ok(Value::String(key)) => key,
                Ok(_) | Err(_) => return Ok(Value::Object(object)),
            };
            self.skip_blank();
            self.index += 1;
            match self.parse_any() {
                Ok(value) => {
                    object.insert(key, value);
                }
                Err(_) => return Ok(Value::Object(object)),
            }
            self.skip_blank();
            if self.at(self.index) == Some(',') {
                self.index += 1;
            }
        }
        self.index += 1;
        Ok(Value::Object(object))
    }

    fn parse_arr(&mut self) -> Parsed {
        self.index += 1;
        let mut array = Vec::new();
        while self.at(self.index) != Some(']') {
            let before = self.index;
            match self.parse_any() {
                Ok(value) => array.push(value),
                Err(_) => return Ok(Value::Array(array)),
            }
            self.skip_blank();
            if self.at(self.index) == Some(',') {
                self.index += 1;
            }
            // The library loops on input it cannot consume; stop instead (the result so far is the same).
            if self.index == before {
                return Ok(Value::Array(array));
            }
        }
        self.index += 1;
        Ok(Value::Array(array))
    }

    fn parse_num(&mut self) -> Parsed {
        if self.index == 0 {
            let whole = self.substring(0, self.len() as isize);
            if whole == "-" {
                return Err(PartialParseError);
            }
            return strict(&whole).or_else(|_| {
                let cut = if whole.ends_with('.') {
                    self.last_index_of('.')
                } else {
                    self.last_index_of('e')
                };
                strict(&self.substring(0, cut))
            });
        }
        let start = self.index;
        if self.at(self.index) == Some('-') {
            self.index += 1;
        }
        while self
            .at(self.index)
            .is_some_and(|ch| !matches!(ch, ',' | ']' | '}'))
        {
            self.index += 1;
        }
        let number = self.substring(start as isize, self.index as isize);
        strict(&number).or_else(|_| {
            if number == "-" {
                return Err(PartialParseError);
            }
            strict(&self.substring(start as isize, self.last_index_of('e')))
        })
    }
}

/// `JSON.parse` of a fragment.
fn strict(text: &str) -> Parsed {
    serde_json::from_str(text).map_err(|_| PartialParseError)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{parse_streaming_json, repair_json};

    #[test]
    fn spec_examples_parse_as_pi_does() {
        let cases = [
            ("", json!({})),
            ("   ", json!({})),
            ("{\"a\":\"hel", json!({"a": "hel"})),
            ("{\"a\":1,\"b\":", json!({"a": 1})),
            ("{\"a\":[1,2", json!({"a": [1, 2]})),
            ("{\"ok\":tr", json!({"ok": true})),
            ("{\"n\":nu", json!({"n": null})),
            ("{\"pa", json!({})),
            ("{\"a\":-", json!({})),
            ("{\"a\":1e", json!({"a": 1})),
            ("{\"a\":1}}", json!({"a": 1})),
            ("{\"a\":\"\\u12\"}", json!({})),
            ("null", json!(null)),
            ("42", json!(42)),
            ("-", json!({})),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_streaming_json(text), expected, "input {text:?}");
        }
    }

    #[test]
    fn invalid_escapes_and_raw_control_characters_are_repaired() {
        assert_eq!(parse_streaming_json(r#"{"p":"A\H"}"#), json!({"p": "A\\H"}));
        assert_eq!(
            parse_streaming_json("{\"t\":\"col1\tcol2\"}"),
            json!({"t": "col1\tcol2"})
        );
        assert_eq!(repair_json("{\"a\":\"x\u{1}\"}"), "{\"a\":\"x\\u0001\"}");
        assert_eq!(repair_json("{\"a\":\"x\\"), "{\"a\":\"x\\\\");
        assert_eq!(
            repair_json("{\"a\":\"\\n\\u00e9\"}\t"),
            "{\"a\":\"\\n\\u00e9\"}\t"
        );
    }

    #[test]
    fn unterminated_strings_drop_a_dangling_escape() {
        assert_eq!(parse_streaming_json("{\"a\":\"x\\"), json!({"a": "x"}));
        assert_eq!(parse_streaming_json("[\"ab"), json!(["ab"]));
        assert_eq!(
            parse_streaming_json("{\"a\":{\"b\":[1,{\"c\":\"d"),
            json!({"a": {"b": [1, {"c": "d"}]}})
        );
    }

    #[test]
    fn every_prefix_of_a_document_parses_to_a_prefix_state() {
        let document = r#"{"path":"src/main.rs","lines":[1,2,30],"force":false,"note":null}"#;
        let mut seen_keys = 0;
        for end in 0..=document.len() {
            let value = parse_streaming_json(&document[..end]);
            let object = value.as_object().unwrap();
            assert!(
                object.len() >= seen_keys || object.is_empty(),
                "prefix {end}"
            );
            seen_keys = seen_keys.max(object.len());
        }
        assert_eq!(parse_streaming_json(document)["lines"], json!([1, 2, 30]));
    }
}
