//! The PDF writer of the tests (shared with the window's end-to-end tests).

pub(crate) use pi_test_support::pdf::pdf_with_pages;
