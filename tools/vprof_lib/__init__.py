"""vProfile host decoder library (issue 5): frame extraction, analysis,
reports, Perfetto export, plots and the seed 001 section 4 slowdown prediction."""
