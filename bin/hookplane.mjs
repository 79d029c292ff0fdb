#!/usr/bin/env node
// The CLI's former path, for hook commands written as `node .../bin/hookplane.mjs`: the command is
// bin/hookplane.cjs (CommonJS for its start-up time; see there).
import "./hookplane.cjs";
