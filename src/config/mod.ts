export * from "./schema.ts";
export { ConfigError, configPaths, flattenConfig, loadConfig, readConfigFile } from "./load.ts";
