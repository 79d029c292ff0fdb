/** What the hookplane importer and exporter share: its names, defaults and mappings. */


export const HOOKPLANE_FORMAT_VERSION = 1;
