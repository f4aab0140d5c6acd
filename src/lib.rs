//! retrobook: parallel retrograde analysis into distance-to-mate endgame tables, and a library
//! to probe them.
//!
//! Data flows one way: rules ([`chess`]) -> material and index ([`material`], [`index`]) ->
//! solver ([`retro`]) -> table files ([`table`]) -> probing ([`probe`]).

pub mod chess;
