//! Sub-tables decoded whole into memory for generation: the solver reads them hundreds of
//! millions of times in no useful order, where a bounded block cache would thrash.

use super::tablebase::{dtm_with_en_passant, Tablebase};
use crate::chess::Position;
use crate::material::Material;
use crate::retro::SubTables;
use crate::value::Dtm;
use std::collections::HashMap;

/// Some tables of a `Tablebase` held decoded in memory (one byte per index and side to
/// move); positions of other tables are read through the tablebase as usual.
pub struct LoadedTables<'a> {
    tb: &'a Tablebase,
    values: HashMap<Material, [Vec<u8>; 2]>,
}

impl<'a> LoadedTables<'a> {
    /// Decodes the tables of `materials` (canonical) that `tb` has open; an error names the
    /// file and block that failed.
    pub fn load(tb: &'a Tablebase, materials: &[Material]) -> Result<LoadedTables<'a>, String> {
        let mut values = HashMap::new();
        for m in materials {
            if let Some(t) = tb.table(m) {
                values.insert(*m, [t.decode_side(0)?, t.decode_side(1)?]);
            }
        }
        Ok(LoadedTables { tb, values })
    }

    /// The value of any position of these tables, en-passant right included.
    pub fn dtm(&self, pos: &Position) -> Result<Dtm, String> {
        dtm_with_en_passant(pos, &|p| self.value(p))
    }

    /// The decoded values of one loaded table (white to move, black to move).
    pub fn values(&self, material: &Material) -> Option<&[Vec<u8>; 2]> {
        self.values.get(material)
    }

    /// Bytes held decoded.
    pub fn bytes(&self) -> usize {
        self.values.values().map(|v| v[0].len() + v[1].len()).sum()
    }
}

impl SubTables for LoadedTables<'_> {
    fn value(&self, pos: &Position) -> Result<Dtm, String> {
        match self.tb.locate(pos).map_err(|e| e.to_string())? {
            None => Ok(Dtm::Draw),
            Some((table, side, idx)) => match self.values.get(&table.material()) {
                Some(v) => Ok(Dtm::decode(v[side][idx as usize])),
                None => self.tb.value(pos),
            },
        }
    }
}
