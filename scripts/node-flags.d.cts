/** scripts/node-flags.cjs: the Node.js flags every Hookplane server and worker process starts with. */
export declare const SERVER_NODE_FLAGS: readonly string[];
