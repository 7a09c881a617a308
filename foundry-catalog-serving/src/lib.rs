//! # foundry-catalog-serving
//!
//! What a serving crate imports to answer `GET
//! /api/public/foundry/products/{slug}`: pre-built catalogs of product
//! records ([`catalog`]), the signed artifact file a catalog is stored in
//! ([`artifact`]), and the endpoint's HTTP rules ([`endpoint`]), which
//! also answer the product pages an artifact holds; with the `http`
//! feature, the endpoint as a `tower::Service` (`service`).
//! Every body is built, validated, compressed and hashed when the catalog
//! is built, so answering a request is a lookup.
//!
//! ```
//! use foundry_catalog_serving::catalog::ResponseCatalog;
//! use foundry_catalog_serving::endpoint::{Request, answer};
//!
//! let catalog = ResponseCatalog::examples();
//! let reply = answer(&catalog, &Request::new("GET", "/api/public/foundry/products/eu-regulatory-status-signals"));
//! assert_eq!(reply.status, 200);
//! ```
//!
//! ## Features
//!
//! | feature | adds |
//! |---|---|
//! | `compression` | gzip and brotli representations of every body, made when a catalog is built |
//! | `http` | `service`: `CatalogService` (a `tower::Service` over the `http` crate's types), `SharedCatalog`, `respond` |
//! | `signing` | `signing`: Ed25519 keys that sign artifacts and verify them before they are served |
//! | `replica` | `replica`: a catalog kept current from an origin as a fleet of replicas keeps it (signed artifacts pulled as deltas into a state folder, checked whole, never rolled back, every fault healed by the next pull), and a `Poller` that keeps a `SharedCatalog` current |
//! | `pages` | `catalog::Builder::pages`: every product's HTML page built with its body, with `robots.txt`, the sitemap and a not-found page (`foundry-catalog-pages`); a catalog serves an artifact's pages without it |
//!
//! ## Platforms
//!
//! Unix only (Linux, macOS): an incremental build tells a changed manifest
//! and a kept-open previous artifact by inode and ctime
//! (`std::os::unix`). The core, the generator and the records crate are
//! portable.
//!
//! The crates beside it: `foundry-catalog-core` (what generated record
//! types target), `foundry-catalog` (product records, the validator, the
//! JSON Schemas), `foundry-catalog-server` (the ready-made HTTP/1.1
//! server process over this crate).

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod artifact;
pub mod catalog;
pub mod delta;
mod encoding;
pub mod endpoint;
pub mod files;
mod parallel;
#[cfg(feature = "replica")]
#[cfg_attr(docsrs, doc(cfg(feature = "replica")))]
pub mod replica;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod service;
#[cfg(feature = "signing")]
#[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
pub mod signing;
