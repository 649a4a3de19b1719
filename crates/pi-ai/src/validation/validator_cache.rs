//! Compiled argument validators, reused across tool calls.
//!
//! Compiling a JSON Schema costs far more than checking arguments against it, and a run validates the same few
//! tool schemas again and again (a 200-call batch compiled the same schema 200 times). Validators are kept per
//! distinct schema value (compared structurally, so a tool cloned per turn still hits), at most `CAPACITY` of
//! them; the oldest is dropped first. Schemas that fail to compile are not cached.

use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// Distinct schemas kept; an application has a bounded set of tools, this only guards against unbounded growth.
const CAPACITY: usize = 64;

static CACHE: Mutex<Vec<(Value, Arc<Validator>)>> = Mutex::new(Vec::new());

/// The validator for `schema`, compiled at most once while it stays cached.
pub(super) fn validator_for(schema: &Value) -> Result<Arc<Validator>, ValidationError<'static>> {
    {
        let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, validator)) = cache.iter().find(|(cached, _)| cached == schema) {
            return Ok(Arc::clone(validator));
        }
    }
    // Compiled outside the lock: another thread may compile the same schema meanwhile; both results are correct.
    let validator = Arc::new(jsonschema::validator_for(schema)?);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if !cache.iter().any(|(cached, _)| cached == schema) {
        if cache.len() >= CAPACITY {
            cache.remove(0);
        }
        cache.push((schema.clone(), Arc::clone(&validator)));
    }
    Ok(validator)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_equal_schema_reuses_the_compiled_validator() {
        let schema =
            json!({ "type": "object", "properties": { "cache_probe_a": { "type": "integer" } } });
        let equal =
            json!({ "type": "object", "properties": { "cache_probe_a": { "type": "integer" } } });
        let first = validator_for(&schema).unwrap();
        let second = validator_for(&equal).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert!(second.is_valid(&json!({ "cache_probe_a": 1 })));
        assert!(!second.is_valid(&json!({ "cache_probe_a": "x" })));
    }

    #[test]
    fn a_different_schema_gets_its_own_validator() {
        let integer =
            json!({ "type": "object", "properties": { "cache_probe_b": { "type": "integer" } } });
        let string =
            json!({ "type": "object", "properties": { "cache_probe_b": { "type": "string" } } });
        let integer_validator = validator_for(&integer).unwrap();
        let string_validator = validator_for(&string).unwrap();
        assert!(!Arc::ptr_eq(&integer_validator, &string_validator));
        assert!(integer_validator.is_valid(&json!({ "cache_probe_b": 1 })));
        assert!(string_validator.is_valid(&json!({ "cache_probe_b": "x" })));
    }
}
