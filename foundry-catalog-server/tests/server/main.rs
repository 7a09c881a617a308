//! The server over real loopback sockets, in one test binary: the HTTP
//! behaviour of the product path (`http`) and the operations side —
//! timeouts, the connection cap, header limits, health and metrics,
//! reloads and the drain (`operations`), and the product pages (`pages`).

mod http;
mod operations;
mod pages;
mod support;
