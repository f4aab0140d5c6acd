//! retrobook: parallel retrograde analysis into distance-to-mate endgame tables, and a library
//! to probe them.
//!
//! Data flows one way: rules ([`chess`]) -> material and index ([`material`], [`index`]) ->
//! solver ([`retro`]) -> table files ([`table`]) -> probing ([`probe`]).

#![warn(missing_docs)]

pub mod chess;
pub mod index;
pub mod material;
pub mod retro;
pub mod value;

pub use value::{Dtm, Wdl, Wdl5};
pub mod book;
pub mod capi;
pub mod generate;
pub mod ghi;
mod prefetch;
pub mod probe;
pub mod table;
#[cfg(test)]
mod testing;
mod zeroed;

pub use probe::{ProbeError, Tablebase};
