// Imported first by a benchmark, before the logger reads LOG_LEVEL: one info line per run step
// would flood the figures. LOG_LEVEL=info npm run bench:... brings them back.
process.env.LOG_LEVEL ??= "warn";
