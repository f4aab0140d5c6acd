//! The explorer page and the API's description, compiled into the binary: nothing is
//! fetched at run time, and the page always matches the server that serves it.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// A compiled-in file: its content type and its text.
#[derive(Clone, Copy)]
pub struct Asset(&'static str, &'static str);

impl IntoResponse for Asset {
    fn into_response(self) -> Response {
        ([(header::CONTENT_TYPE, self.0)], self.1).into_response()
    }
}

/// The explorer page.
pub const INDEX: Asset = Asset("text/html; charset=utf-8", include_str!("page/index.html"));
/// Its script.
pub const SCRIPT: Asset = Asset(
    "text/javascript; charset=utf-8",
    include_str!("page/explorer.js"),
);
/// Its style sheet.
pub const STYLE: Asset = Asset("text/css; charset=utf-8", include_str!("page/explorer.css"));
/// The API's OpenAPI 3 description.
pub const OPENAPI: Asset = Asset("application/json", include_str!("page/openapi.json"));
