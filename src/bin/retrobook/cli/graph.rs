//! `retrobook graph solve`.

use crate::output::{runtime, say, Failure};
use retrobook::ghi::{solve, Graph};
use serde_json::json;
use std::path::Path;

/// `graph solve FILE [--root NODE] [--json]`.
pub fn cmd_solve(file: &Path, root: Option<&str>, json: bool) -> Result<(), Failure> {
    let text =
        std::fs::read_to_string(file).map_err(|e| runtime(format!("{}: {e}", file.display())))?;
    let g = Graph::parse(&text).map_err(|e| runtime(format!("{}: {e}", file.display())))?;
    let nodes: Vec<usize> = match root {
        Some(r) => vec![g
            .node(r)
            .ok_or_else(|| runtime(format!("{}: no node named {r}", file.display())))?],
        None => (0..g.len()).collect(),
    };
    let s = solve(&g);
    if json {
        let map: serde_json::Map<String, serde_json::Value> = nodes
            .iter()
            .map(|&v| {
                (
                    g.names[v].clone(),
                    json!({"value": s.values[v].as_str(), "path_dependent": s.path_dependent[v]}),
                )
            })
            .collect();
        return say(json!({ "nodes": map }));
    }
    for v in nodes {
        let mark = if s.path_dependent[v] {
            "  (path-dependent)"
        } else {
            ""
        };
        say(format!("{} {}{mark}", g.names[v], s.values[v]))?;
    }
    Ok(())
}
