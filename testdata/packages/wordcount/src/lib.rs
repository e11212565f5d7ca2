//! Counting lines, words and bytes, as wc does.

use smallvec::SmallVec;

/// Counts of one input.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub words: u64,
    pub bytes: u64,
}

/// Counts the lines (newline bytes, found with memchr), words (runs of non-space
/// bytes) and bytes of data.
pub fn count(data: &[u8]) -> Counts {
    let lines = memchr::memchr_iter(b'\n', data).count() as u64;
    let mut words = 0;
    let mut in_word = false;
    for &b in data {
        let space = b.is_ascii_whitespace();
        if !space && !in_word {
            words += 1;
        }
        in_word = !space;
    }
    Counts { lines, words, bytes: data.len() as u64 }
}

/// Formats the counts as wc prints them: lines, words, bytes, separated by spaces.
pub fn format(c: &Counts) -> String {
    // Three numbers: no heap allocation for the parts.
    let mut parts: SmallVec<[String; 3]> = SmallVec::new();
    let mut buf = itoa::Buffer::new();
    for n in [c.lines, c.words, c.bytes] {
        parts.push(buf.format(n).to_owned());
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        assert_eq!(count(b""), Counts::default());
    }

    #[test]
    fn lines_and_words() {
        assert_eq!(count(b"one two\nthree\n"), Counts { lines: 2, words: 3, bytes: 14 });
    }

    #[test]
    fn no_trailing_newline() {
        assert_eq!(count(b"a  b\tc"), Counts { lines: 0, words: 3, bytes: 6 });
    }

    #[test]
    fn formats_like_wc() {
        assert_eq!(format(&Counts { lines: 12, words: 345, bytes: 6789 }), "12 345 6789");
    }
}
