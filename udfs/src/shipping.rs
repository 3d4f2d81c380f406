//! The state some functions carry, as bytes that travel with a plan.
//!
//! Most functions here are pure: a node of a cluster that has them registered
//! by name computes what the client would. Four answer from session state
//! instead: the roofline functions (the platform list, which `--platforms`
//! extends), `tracelens_compat()` (`--tracelens-compat`), `setting()`
//! (`--set`) and `trace_run()` (the dataset's manifest). A plan that runs elsewhere must take that state along, or a
//! remote node would answer with its own defaults; a plan codec calls
//! [`encode`] for every function it serializes and [`decode`] to rebuild it.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::common::{plan_datafusion_err, Result};
use datafusion::logical_expr::ScalarUDF;
use serde_json::{json, Map, Value};

use crate::compat::TracelensCompat;
use crate::roofline::{Platform, RooflineOutput, RooflineUdf};
use crate::setting::Setting;
use crate::trace_run::TraceRun;

/// The state of `udf` as bytes, when it carries any (None: rebuild it by name).
pub fn encode(udf: &ScalarUDF) -> Option<Vec<u8>> {
    let inner: &dyn std::any::Any = udf.inner().as_ref();
    let state = if let Some(roofline) = inner.downcast_ref::<RooflineUdf>() {
        let list: Vec<Value> = roofline.platforms().iter().map(platform_json).collect();
        json!({ "platforms": list })
    } else if let Some(compat) = inner.downcast_ref::<TracelensCompat>() {
        json!({ "on": compat.on() })
    } else if let Some(setting) = inner.downcast_ref::<Setting>() {
        json!({ "values": setting.values() })
    } else if let Some(runs) = inner.downcast_ref::<TraceRun>() {
        json!({ "runs": runs.runs() })
    } else {
        return None;
    };
    serde_json::to_vec(&state).ok()
}

/// The function `name` rebuilt from what [`encode`] wrote; None when `name` is
/// not a function with state.
pub fn decode(name: &str, bytes: &[u8]) -> Option<Result<ScalarUDF>> {
    let rebuilt = || -> Result<Option<ScalarUDF>> {
        let state: Value = serde_json::from_slice(bytes)
            .map_err(|e| plan_datafusion_err!("{name}: state does not parse: {e}"))?;
        let roofline = [
            RooflineOutput::Bound,
            RooflineOutput::TimeUs,
            RooflineOutput::Efficiency,
        ]
        .into_iter()
        .find(|o| RooflineUdf::new(*o, Arc::default()).name() == name);
        let udf = if let Some(output) = roofline {
            let list = state["platforms"]
                .as_array()
                .ok_or_else(|| plan_datafusion_err!("{name}: no platform list"))?
                .iter()
                .map(platform_from_json)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| plan_datafusion_err!("{name}: a platform does not parse"))?;
            ScalarUDF::from(RooflineUdf::new(output, Arc::new(list)))
        } else if name == "tracelens_compat" {
            ScalarUDF::from(TracelensCompat::new(state["on"].as_bool().unwrap_or(false)))
        } else if name == "setting" {
            let values: BTreeMap<String, String> =
                serde_json::from_value(state["values"].clone()).unwrap_or_default();
            ScalarUDF::from(Setting::new(values))
        } else if name == crate::trace_run::NAME {
            let runs: BTreeMap<String, String> =
                serde_json::from_value(state["runs"].clone()).unwrap_or_default();
            ScalarUDF::from(TraceRun::new(runs))
        } else {
            return Ok(None);
        };
        Ok(Some(udf))
    };
    rebuilt().transpose()
}

use datafusion::logical_expr::ScalarUDFImpl as _;

fn platform_json(p: &Platform) -> Value {
    json!({
        "name": p.name,
        "memory_tb_s": p.memory_tb_s,
        "peak_tflops": p.peak_tflops,
        "source": p.source,
        "intra_node_gb_s": p.intra_node_gb_s,
        "inter_node_gb_s": p.inter_node_gb_s,
    })
}

fn platform_from_json(v: &Value) -> Option<Platform> {
    let peaks: &Map<String, Value> = v["peak_tflops"].as_object()?;
    Some(Platform {
        name: v["name"].as_str()?.to_string(),
        memory_tb_s: v["memory_tb_s"].as_f64()?,
        peak_tflops: peaks
            .iter()
            .map(|(k, x)| Some((k.clone(), x.as_f64()?)))
            .collect::<Option<_>>()?,
        source: v["source"].as_str().unwrap_or_default().to_string(),
        intra_node_gb_s: v["intra_node_gb_s"].as_f64(),
        inter_node_gb_s: v["inter_node_gb_s"].as_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roofline::builtin_platforms;

    #[test]
    fn stateful_functions_come_back_equal() {
        let mut list = builtin_platforms();
        list[0].inter_node_gb_s = Some(50.0);
        let udfs = [
            ScalarUDF::from(RooflineUdf::new(RooflineOutput::Efficiency, Arc::new(list))),
            ScalarUDF::from(TracelensCompat::new(true)),
            ScalarUDF::from(Setting::new(BTreeMap::from([("k".into(), "v".into())]))),
            ScalarUDF::from(TraceRun::new(BTreeMap::from([(
                "rank0".into(),
                "r1".into(),
            )]))),
        ];
        for udf in udfs {
            let bytes = encode(&udf).expect("has state");
            let back = decode(udf.name(), &bytes).expect("known").expect("decodes");
            assert_eq!(back, udf, "{}", udf.name());
        }
    }

    #[test]
    fn pure_functions_travel_by_name() {
        let udf = ScalarUDF::from(crate::np_round::NpRound::new());
        assert!(encode(&udf).is_none());
        assert!(decode("np_round", b"{}").is_none());
        assert!(decode("roofline_bound", b"not json")
            .expect("known")
            .is_err());
    }
}
