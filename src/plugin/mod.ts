/** Plugin system: discovery, manifests, loading and the `svc plugins` operations. */
export {
  bundledPluginsDir,
  type Candidate,
  discoverPlugins,
  type PluginOrigin,
  type PluginRoot,
  pluginRoots,
  type RootOptions,
} from "./discover.ts";
export {
  incompatibility,
  type Manifest,
  MANIFEST_MAX_BYTES,
  type ManifestResult,
  readManifest,
} from "./manifest.ts";
export { ManifestSchema } from "./manifest_schema.ts";
export {
  emptyLoadResult,
  type LoadOptions,
  loadPlugins,
  type LoadResult,
  type PluginInfo,
  type PluginStatus,
} from "./load.ts";
export { type HookName, HOOKS, type Registrations } from "./registrars.ts";
export {
  type InstalledPlugin,
  type InstallOptions,
  installPlugin,
  uninstallPlugin,
  updatablePlugins,
  updatePlugin,
} from "./install.ts";
export { describeGrant, grantSummary, type PluginGrant } from "./grant.ts";
export { grantFor, PermissionsSchema, PLUGIN_PERMISSIONS } from "./permissions.ts";
export { readSourceRecord, SOURCE_FILE, type SourceRecord, sourceType } from "./source.ts";
export { type PluginTestRun, runPluginTests } from "./plugin_tests.ts";
