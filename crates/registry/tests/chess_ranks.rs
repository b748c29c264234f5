//! Chess across ranks (`Built::solve` over ranks that are threads of this process):
//! rank 0's report of an ending, and of a set of endings, is one process's, with the tiers
//! in memory and in files, on 1 to 3 ranks.

use retrograde_registry::{entry, Args, Built, Report};
use retrograde_solve::exchange::{run_local, Exchange, Solo};
use retrograde_tier::{MemStorage, SolveOptions, Storage};
use std::sync::Arc;

fn built(args: serde_json::Value) -> Box<dyn Built> {
    let e = entry("chess").expect("chess");
    e.build(&Args::from_json(e.params, &args).expect("parameters"))
        .expect("a game")
}

/// A report without what depends on the clock: the seconds of a set's lines and JSON.
fn untimed(r: &Report) -> (Option<String>, Vec<String>, serde_json::Value) {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("seconds");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let lines = (r.lines.iter())
        .map(|l| {
            l.split(", ")
                .filter(|part| {
                    part.strip_suffix(" s")
                        .is_none_or(|n| n.parse::<f64>().is_err())
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let mut fields = serde_json::Value::Object(r.fields.iter().cloned().collect());
    strip(&mut fields);
    (r.first_line.clone(), lines, fields)
}

/// The options `retrograde game chess` passes: values are kept with a database only.
fn options(storage: Option<Arc<dyn Storage>>) -> SolveOptions {
    let mut opts = SolveOptions::default();
    opts.keep_values = storage.is_some();
    opts.storage = storage;
    opts
}

/// One process's report of `args`, then rank 0's on 1 to 3 ranks, each with the tiers in
/// memory and in a storage of its own.
fn check(args: serde_json::Value) {
    let b = built(args.clone());
    for stored in [false, true] {
        let storage = || stored.then(|| Arc::new(MemStorage::new()) as Arc<dyn Storage>);
        let one = b.solve(&options(storage()), &Solo).unwrap();
        let one = one.answer.report().unwrap();
        let want = untimed(&one);
        assert!(want.1.len() > 2, "{args}: {:?}", want.1);
        for k in 1..=3 {
            let got = run_local(k, |ex| {
                let opts = options(storage());
                let answer = b.solve(&opts, ex).unwrap().answer;
                (ex.rank() == 0).then(|| untimed(&answer.report().unwrap()))
            });
            let got = got.into_iter().next().flatten().expect("rank 0's report");
            assert_eq!(got, want, "{args}, {k} ranks, stored {stored}");
        }
    }
}

#[test]
fn an_ending_across_ranks_reports_as_one_process() {
    check(serde_json::json!({ "material": "KRvK" }));
    check(serde_json::json!({ "material": "KPvK" }));
}

#[test]
fn a_set_across_ranks_reports_as_one_process() {
    check(serde_json::json!({ "up-to": 3 }));
}
