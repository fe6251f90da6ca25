/**
 * The value of the app section `key` (ConfigSection) in `config`, which the
 * program loaded with that section registered. No zod here: a CLI command
 * reads its section from the memo of the validated file (config-memo.ts)
 * without loading the schemas.
 */
export function sectionOf<T>(config: { sections: Record<string, unknown> }, key: string): T {
  if (!(key in config.sections)) throw new Error(`config section [${key}] was not loaded: register it with the program's sections`);
  return config.sections[key] as T;
}
