//! Where a segment of a streamed body is cut into writes ([`Pacing`]).

use crate::response::Pacing;

/// The writes of `payload`: cut every `write_size` bytes, plus inside multi-byte UTF-8 characters when asked.
pub(crate) fn pieces<'a>(payload: &'a [u8], pacing: &Pacing) -> Vec<&'a [u8]> {
    let mut bounds: Vec<usize> = match pacing.write_size {
        Some(size) => {
            let size = size.max(1);
            (size..payload.len()).step_by(size).collect()
        }
        None => Vec::new(),
    };
    if pacing.split_utf8 {
        bounds.extend(utf8_cuts(payload));
    }
    bounds.retain(|bound| *bound > 0 && *bound < payload.len());
    bounds.sort_unstable();
    bounds.dedup();
    let mut edges = vec![0];
    edges.extend(bounds);
    edges.push(payload.len());
    edges
        .windows(2)
        .map(|edge| &payload[edge[0]..edge[1]])
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// Offsets inside multi-byte UTF-8 characters; the n-th such character is cut after its
/// `(n mod (len - 1)) + 1`-th byte.
fn utf8_cuts(payload: &[u8]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut n = 0;
    let mut i = 0;
    while i < payload.len() {
        let lead = payload[i];
        let len = if lead >> 5 == 0b110 {
            2
        } else if lead >> 4 == 0b1110 {
            3
        } else if lead >> 3 == 0b1_1110 {
            4
        } else {
            1
        };
        if len > 1 {
            cuts.push(i + (n % (len - 1)) + 1);
            n += 1;
        }
        i += len;
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_every_write_size_bytes() {
        let pacing = Pacing {
            write_size: Some(3),
            ..Pacing::default()
        };
        assert_eq!(
            pieces(b"abcdefgh", &pacing),
            vec![&b"abc"[..], b"def", b"gh"]
        );
    }

    #[test]
    fn without_a_write_size_a_segment_is_one_write() {
        assert_eq!(
            pieces(b"abcdefgh", &Pacing::default()),
            vec![&b"abcdefgh"[..]]
        );
        assert!(pieces(b"", &Pacing::default()).is_empty());
    }

    #[test]
    fn split_utf8_cuts_inside_each_multi_byte_character() {
        let pacing = Pacing {
            split_utf8: true,
            ..Pacing::default()
        };
        // "ü" (bytes 1-2) is cut after its first byte, the first "€" (3-5) after its second, the next (6-8)
        // after its first.
        let text = "aü€€".as_bytes();
        assert_eq!(
            pieces(text, &pacing),
            vec![&text[..2], &text[2..5], &text[5..7], &text[7..]]
        );
    }
}
