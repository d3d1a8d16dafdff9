// main.cc - bench_core: every row for ML-DSA-44, -65 and -87 in turn, then Falcon-512 / -1024,
// then the composites.
#include "bench/bench.h"
#include "cpu/backend.h"

#include <string>

int main(int argc, char** argv) {
  using mldsa::ParamSet;
  for (ParamSet set : {ParamSet::ML_DSA_44, ParamSet::ML_DSA_65, ParamSet::ML_DSA_87}) {
    mldsa::bench::register_core_benchmarks(set);
#ifdef MLDSA_BENCH_PROVIDER
    mldsa::bench::register_provider_benchmarks(set);
#endif
  }
  mldsa::bench::register_falcon_benchmarks();
  mldsa::bench::register_composite_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("mldsa backend", mldsa::backend_name());
  benchmark::AddCustomContext("mldsa tuning", mldsa::backend_tuning());
  // The backends this CPU runs (bench/plot_results.py runs each in turn).
  std::string runnable;
  for (const std::string& spec : mldsa::backend_specs())
    if (spec != "auto" && spec.find('@') == std::string::npos && !mldsa::backend_tables(spec).empty())
      runnable += (runnable.empty() ? "" : ",") + spec;
  benchmark::AddCustomContext("mldsa backends", runnable);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
