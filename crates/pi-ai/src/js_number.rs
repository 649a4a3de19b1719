//! JavaScript-compatible number printing for costs.
//!
//! pi prints every number the way JavaScript does: an integral double has no fraction (`0`, not `0.0`).
//! `serde_json::Value` treats `0` and `0.0` as different values, so costs that are integral and finite are
//! written as integers, everything else as a double.

use serde::Serializer;

/// Largest magnitude below which every integral `f64` is exactly an `i64` (2^53).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Serializes an `f64` as JavaScript would print it: integral finite values as integers.
pub(crate) fn serialize_js_f64<S: Serializer>(
    value: &f64,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let value = *value;
    if value.is_finite() && value.fract() == 0.0 && value.abs() < MAX_SAFE_INTEGER {
        // The guard above keeps the value exactly representable, so the cast is lossless.
        let integer = value as i64;
        serializer.serialize_i64(integer)
    } else {
        serializer.serialize_f64(value)
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    #[derive(Serialize)]
    struct Wrapper(#[serde(serialize_with = "super::serialize_js_f64")] f64);

    #[test]
    fn integral_costs_print_without_fraction() {
        assert_eq!(serde_json::to_string(&Wrapper(0.0)).unwrap(), "0");
        assert_eq!(serde_json::to_string(&Wrapper(3.0)).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Wrapper(-2.0)).unwrap(), "-2");
    }

    #[test]
    fn fractional_costs_print_as_doubles() {
        assert_eq!(
            serde_json::to_string(&Wrapper(0.000_15)).unwrap(),
            "0.00015"
        );
        assert_eq!(serde_json::to_string(&Wrapper(1.5)).unwrap(), "1.5");
    }
}
