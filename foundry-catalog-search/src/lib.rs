//! # foundry-catalog-search
//!
//! The full-text index of foundry-catalog's site search. A build adds
//! each product as a document of weighted fields ([`IndexBuilder`]) and
//! stores the bytes it finishes with in its artifact: a head (the
//! documents' lengths) and parts (the words, split by a hash of each),
//! so that an edit of one document changes the head and the parts of
//! the words whose count in it changed (adding or removing a document
//! renumbers those after it, and changes every part), and a build that
//! knows which documents changed makes just those ([`IndexEdit`]). A
//! server opens
//! those bytes in place ([`Index::open`], [`Part::open`]: no copy, no
//! parse beyond a check) and answers each query by reading the words it
//! asks for from their parts:
//!
//! - words: [`words`] (letters and digits, lowercased; pairs of
//!   characters in Han, kana and Hangul);
//! - matching: every word of the query (AND);
//! - ranking: BM25 (k1 = 1.2, b = 0.75), a word's count weighted by the
//!   fields it is in;
//! - layout: [`format`](mod@format), versioned, deterministic (the same documents
//!   give the same bytes on every machine).
//!
//! ```
//! use foundry_catalog_search::IndexBuilder;
//!
//! let mut builder = IndexBuilder::new();
//! builder.add(&[(3, "Webhook connector"), (1, "Sends CRM events to a URL")]);
//! builder.add(&[(3, "CRM export"), (1, "A webhook, daily")]);
//! builder.add(&[(3, "EU signals"), (1, "Daily market signals")]);
//! let built = builder.finish();
//! let index = built.open().unwrap();
//! let found = index.search("Webhook", 0, 10).unwrap();
//! // In a title (weight 3) ranks above in a summary (weight 1).
//! assert_eq!(found.hits.iter().map(|hit| hit.doc).collect::<Vec<_>>(), [0, 1]);
//! assert_eq!(index.search("crm daily", 0, 10).unwrap().total, 1);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod edit;
pub mod format;
mod read;
mod tokens;
mod write;

pub use edit::{Edited, IndexEdit};
pub use read::{Found, Hit, Index, IndexError, MAX_QUERY_WORDS, Part, query_words};
pub use tokens::{MAX_WORD, words};
pub use write::{Built, IndexBuilder, Opened};
