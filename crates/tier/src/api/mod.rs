//! What a game gives the engine: the game traits ([`game`]), move and position names
//! ([`notation`]), helpers for dense indices ([`index`]), the conformance test a game calls
//! ([`check_game`](crate::check_game)) and the game as an explicit graph (an oracle).

pub(crate) mod check;
pub(crate) mod dag;
pub(crate) mod explicit;
pub mod game;
pub mod index;
pub mod notation;
