//! [`SharedText`]: an immutable text value whose appends are cheap even when old versions are kept.
//!
//! A streaming response grows its text block by block delta, and every event hands consumers a snapshot of the
//! message so far (spec 6.2). Copying the whole text per delta would make a consumer that keeps every snapshot pay
//! O(n²). A `SharedText` is a view of a prefix of an append-only buffer shared by all its versions: appending to
//! the newest version writes into the shared buffer (amortised O(delta)); older versions keep seeing their own,
//! unchanged prefix. Appending to an older version (one whose buffer has grown past it) copies once, so every
//! `SharedText` behaves as an ordinary immutable string value.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable string that shares its storage with the versions it was appended from.
///
/// Clone is O(1). Read it with [`SharedText::as_str`] (a short-lived guard that derefs to `str`) or
/// [`fmt::Display`]; it serializes as a plain JSON string.
#[derive(Clone)]
pub struct SharedText {
    buffer: Arc<RwLock<String>>,
    len: usize,
}

/// A borrowed view of a [`SharedText`]; derefs to `str`.
///
/// Holds a read lock on the shared buffer: keep it short-lived (never across an `.await`), since the producer
/// of a live stream needs the write lock to append.
pub struct TextRef<'a> {
    guard: RwLockReadGuard<'a, String>,
    len: usize,
}

impl Deref for TextRef<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        // `len` always lies on a char boundary: it is the length of the buffer after a whole `&str` was appended.
        self.guard.get(..self.len).unwrap_or_default()
    }
}

impl SharedText {
    /// Creates a text holding `text`.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let len = text.len();
        Self {
            buffer: Arc::new(RwLock::new(text)),
            len,
        }
    }

    /// Borrows the text. The guard must not be held across an `.await`.
    pub fn as_str(&self) -> TextRef<'_> {
        TextRef {
            guard: self.buffer.read().unwrap_or_else(PoisonError::into_inner),
            len: self.len,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Returns this text with `delta` appended, leaving `self` (and every other clone) unchanged.
    ///
    /// Amortised O(`delta`) when `self` is the newest version of its buffer; otherwise copies once.
    #[must_use]
    pub fn appended(&self, delta: &str) -> Self {
        let mut next = self.clone();
        next.push_str(delta);
        next
    }

    /// Appends `delta` to this value (other clones keep their old value).
    ///
    /// Never waits: if a reader currently holds a [`TextRef`] of the shared buffer, this value forks a private
    /// copy instead of blocking (so a consumer holding a `TextRef` cannot deadlock the producer).
    pub fn push_str(&mut self, delta: &str) {
        if let Ok(mut buffer) = self.buffer.try_write() {
            if buffer.len() == self.len {
                buffer.push_str(delta);
                self.len = buffer.len();
                return;
            }
        }
        // Another version already appended past our end, or a reader holds the buffer: fork our prefix.
        let forked = {
            let buffer = self.buffer.read().unwrap_or_else(PoisonError::into_inner);
            let mut forked = String::with_capacity((self.len + delta.len()).max(self.len * 2));
            forked.push_str(buffer.get(..self.len).unwrap_or_default());
            forked
        };
        let mut forked = forked;
        forked.push_str(delta);
        *self = Self::new(forked);
    }
}

impl Default for SharedText {
    fn default() -> Self {
        Self::new(String::new())
    }
}

impl fmt::Display for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.as_str(), f)
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && *self.as_str() == *other.as_str()
    }
}

impl Eq for SharedText {}

impl PartialEq<str> for SharedText {
    fn eq(&self, other: &str) -> bool {
        *self.as_str() == *other
    }
}

impl PartialEq<&str> for SharedText {
    fn eq(&self, other: &&str) -> bool {
        *self.as_str() == **other
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl Serialize for SharedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl<'de> Deserialize<'de> for SharedText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::SharedText;

    #[test]
    fn old_versions_keep_their_prefix_after_appends() {
        let first = SharedText::new("he");
        let second = first.appended("llo");
        let third = second.appended(" world");
        assert_eq!(first, "he");
        assert_eq!(second, "hello");
        assert_eq!(third, "hello world");
    }

    #[test]
    fn appending_to_an_old_version_forks_instead_of_overwriting() {
        let base = SharedText::new("ab");
        let newest = base.appended("c");
        let fork = base.appended("X");
        assert_eq!(newest, "abc");
        assert_eq!(fork, "abX");
        assert_eq!(base, "ab");
        assert_eq!(newest.appended("d"), "abcd");
    }

    #[test]
    fn appending_while_a_reader_holds_the_text_forks_instead_of_waiting() {
        let base = SharedText::new("ab");
        let reader = base.as_str();
        let grown = base.appended("c");
        assert_eq!(&*reader, "ab");
        drop(reader);
        assert_eq!(grown, "abc");
        assert_eq!(base, "ab");
    }

    #[test]
    fn serializes_as_a_plain_string() {
        let text = SharedText::new("a\"b").appended("\n");
        assert_eq!(serde_json::to_string(&text).unwrap(), r#""a\"b\n""#);
        let back: SharedText = serde_json::from_str(r#""x""#).unwrap();
        assert_eq!(back, "x");
    }
}
