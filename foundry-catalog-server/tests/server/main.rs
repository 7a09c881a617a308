//! The server over real loopback sockets, in one test binary: the HTTP
//! behaviour of the product path (`http`) and the operations side —
//! timeouts, the connection cap, header limits, health and metrics,
//! reloads and the drain (`operations`).

mod http;
mod operations;
mod support;
