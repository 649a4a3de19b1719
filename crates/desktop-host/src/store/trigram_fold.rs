//! How the search index folds case: SQLite's trigram tokenizer, as `message_search` uses it (`case_sensitive 0`,
//! `remove_diacritics 0`), indexes every character as `sqlite3Fts5UnicodeFold` returns it. [`fold_char`] is that
//! function, with its tables copied from the bundled SQLite (3.53.2, `fts5_unicode2.c`, generated from Unicode's
//! CaseFolding.txt), so a key looked up in the index's vocabulary is folded exactly as the index was. A test
//! compares it with the tokenizer itself for every code point.

/// Folding rules by first code point: `(first, flags, count)`. The `count` code points from `first` fold by
/// `OFFSETS[flags >> 1]` (modulo 2^16); with the low bit of `flags` set, only those of `first`'s parity do.
#[rustfmt::skip]
const RULES: [(u16, u8, u8); 163] = [
    (65, 14, 26), (181, 64, 1), (192, 14, 23), (216, 14, 7), (256, 1, 48), (306, 1, 6),
    (313, 1, 16), (330, 1, 46), (376, 116, 1), (377, 1, 6), (383, 104, 1), (385, 50, 1),
    (386, 1, 4), (390, 44, 1), (391, 0, 1), (393, 42, 2), (395, 0, 1), (398, 32, 1),
    (399, 38, 1), (400, 40, 1), (401, 0, 1), (403, 42, 1), (404, 46, 1), (406, 52, 1),
    (407, 48, 1), (408, 0, 1), (412, 52, 1), (413, 54, 1), (415, 56, 1), (416, 1, 6),
    (422, 60, 1), (423, 0, 1), (425, 60, 1), (428, 0, 1), (430, 60, 1), (431, 0, 1),
    (433, 58, 2), (435, 1, 4), (439, 62, 1), (440, 0, 1), (444, 0, 1), (452, 2, 1),
    (453, 0, 1), (455, 2, 1), (456, 0, 1), (458, 2, 1), (459, 1, 18), (478, 1, 18),
    (497, 2, 1), (498, 1, 4), (502, 122, 1), (503, 134, 1), (504, 1, 40), (544, 110, 1),
    (546, 1, 18), (570, 70, 1), (571, 0, 1), (573, 108, 1), (574, 68, 1), (577, 0, 1),
    (579, 106, 1), (580, 28, 1), (581, 30, 1), (582, 1, 10), (837, 36, 1), (880, 1, 4),
    (886, 0, 1), (902, 18, 1), (904, 16, 3), (908, 26, 1), (910, 24, 2), (913, 14, 17),
    (931, 14, 9), (962, 0, 1), (975, 4, 1), (976, 140, 1), (977, 142, 1), (981, 146, 1),
    (982, 144, 1), (984, 1, 24), (1008, 136, 1), (1009, 138, 1), (1012, 130, 1), (1013, 128, 1),
    (1015, 0, 1), (1017, 152, 1), (1018, 0, 1), (1021, 110, 3), (1024, 34, 16), (1040, 14, 32),
    (1120, 1, 34), (1162, 1, 54), (1216, 6, 1), (1217, 1, 14), (1232, 1, 88), (1329, 22, 38),
    (4256, 66, 38), (4295, 66, 1), (4301, 66, 1), (7680, 1, 150), (7835, 132, 1), (7838, 96, 1),
    (7840, 1, 96), (7944, 150, 8), (7960, 150, 6), (7976, 150, 8), (7992, 150, 8), (8008, 150, 6),
    (8025, 151, 8), (8040, 150, 8), (8072, 150, 8), (8088, 150, 8), (8104, 150, 8), (8120, 150, 2),
    (8122, 126, 2), (8124, 148, 1), (8126, 100, 1), (8136, 124, 4), (8140, 148, 1), (8152, 150, 2),
    (8154, 120, 2), (8168, 150, 2), (8170, 118, 2), (8172, 152, 1), (8184, 112, 2), (8186, 114, 2),
    (8188, 148, 1), (8486, 98, 1), (8490, 92, 1), (8491, 94, 1), (8498, 12, 1), (8544, 8, 16),
    (8579, 0, 1), (9398, 10, 26), (11264, 22, 47), (11360, 0, 1), (11362, 88, 1), (11363, 102, 1),
    (11364, 90, 1), (11367, 1, 6), (11373, 84, 1), (11374, 86, 1), (11375, 80, 1), (11376, 82, 1),
    (11378, 0, 1), (11381, 0, 1), (11390, 78, 2), (11392, 1, 100), (11499, 1, 4), (11506, 0, 1),
    (42560, 1, 46), (42624, 1, 24), (42786, 1, 14), (42802, 1, 62), (42873, 1, 4), (42877, 76, 1),
    (42878, 1, 10), (42891, 0, 1), (42893, 74, 1), (42896, 1, 4), (42912, 1, 10), (42922, 72, 1),
    (65313, 14, 26),
];

#[rustfmt::skip]
const OFFSETS: [u16; 77] = [
    1, 2, 8, 15, 16, 26, 28, 32, 37, 38, 40, 48,
    63, 64, 69, 71, 79, 80, 116, 202, 203, 205, 206, 207,
    209, 210, 211, 213, 214, 217, 218, 219, 775, 7264, 10792, 10795,
    23228, 23256, 30204, 54721, 54753, 54754, 54756, 54787, 54793, 54809, 57153, 57274,
    57921, 58019, 58363, 61722, 65268, 65341, 65373, 65406, 65408, 65410, 65415, 65424,
    65436, 65439, 65450, 65462, 65472, 65476, 65478, 65480, 65482, 65488, 65506, 65511,
    65514, 65521, 65527, 65528, 65529,
];

/// The Deseret capitals, the only folded code points above the Basic Multilingual Plane, and their distance to
/// the small letters.
const DESERET_CAPITALS: std::ops::Range<u32> = 0x10400..0x10428;
const DESERET_OFFSET: u32 = 40;

/// `character` as the trigram tokenizer indexes it.
pub(crate) fn fold_char(character: char) -> char {
    let code = u32::from(character);
    // SQLite reads the two noncharacters U+FFFE and U+FFFF as U+FFFD, in the tokenizer as in `LIKE`.
    if code & !1 == 0xFFFE {
        return char::REPLACEMENT_CHARACTER;
    }
    if character.is_ascii() {
        return character.to_ascii_lowercase();
    }
    let folded = if code < 0x1_0000 {
        let Some(&(first, flags, count)) = RULES
            .partition_point(|&(first, _, _)| u32::from(first) <= code)
            .checked_sub(1)
            .and_then(|index| RULES.get(index))
        else {
            return character;
        };
        let first = u32::from(first);
        let in_range = code < first + u32::from(count);
        let right_parity = u32::from(flags) & 1 & (first ^ code) == 0;
        match OFFSETS.get(usize::from(flags >> 1)) {
            Some(&offset) if in_range && right_parity => (code + u32::from(offset)) & 0xFFFF,
            _ => code,
        }
    } else if DESERET_CAPITALS.contains(&code) {
        code + DESERET_OFFSET
    } else {
        code
    };
    char::from_u32(folded).unwrap_or(character)
}

/// `text` folded character by character (see [`fold_char`]).
pub(crate) fn fold(text: &str) -> String {
    text.chars().map(fold_char).collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use rusqlite::Connection;

    use super::*;

    /// Every code point the tokenizer folds differently from [`fold_char`], with both answers, read from an index
    /// of each code point written three times (one trigram each).
    fn differences(codes: impl Iterator<Item = u32>) -> Vec<(u32, String, String)> {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch(
                "CREATE VIRTUAL TABLE probe USING fts5 (text, tokenize = 'trigram');
                 CREATE VIRTUAL TABLE probe_vocab USING fts5vocab (probe, 'instance');
                 BEGIN;",
            )
            .unwrap();
        let mut written = Vec::new();
        {
            let mut insert = connection
                .prepare("INSERT INTO probe (rowid, text) VALUES (?1, ?2)")
                .unwrap();
            for code in codes {
                let Some(character) = char::from_u32(code).filter(|&character| character != '\0')
                else {
                    continue;
                };
                insert
                    .execute((i64::from(code), character.to_string().repeat(3)))
                    .unwrap();
                written.push(character);
            }
        }
        connection.execute_batch("COMMIT;").unwrap();
        let mut statement = connection
            .prepare("SELECT doc, term FROM probe_vocab ORDER BY doc")
            .unwrap();
        let indexed: Vec<(i64, String)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(indexed.len(), written.len(), "one trigram per code point");
        indexed
            .into_iter()
            .zip(written)
            .filter_map(|((doc, term), character)| {
                assert_eq!(doc, i64::from(u32::from(character)));
                let ours = fold_char(character).to_string().repeat(3);
                (term != ours).then(|| (u32::from(character), term, ours))
            })
            .collect()
    }

    #[test]
    fn folding_is_the_tokenizers_for_every_code_point() {
        assert_eq!(differences(0..0x2_0000), vec![]);
        assert_eq!(differences((0x2_0000..=0x10_FFFF).step_by(97)), vec![]);
    }

    #[test]
    fn folding_twice_is_folding_once() {
        // A trigram read from the vocabulary is folded again when it is quoted in a MATCH; it must stay the same.
        for character in (0..=0x10_FFFF).filter_map(char::from_u32) {
            assert_eq!(
                fold_char(fold_char(character)),
                fold_char(character),
                "{character:?}"
            );
        }
    }

    #[test]
    fn letters_fold_to_small_ones() {
        assert_eq!(fold("PI Ä ΣΑ Я Ｚ 熊猫 𐐀"), "pi ä σα я ｚ 熊猫 𐐨");
    }
}
