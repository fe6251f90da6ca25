/**
 * Variables nobody may set in the environment of a process a daemon starts
 * for them (a pane's `env`, a tool's `env`): each makes a program the caller
 * named load or run code the approval question never showed, or choose
 * another program or start-up file than the one it names. The same effect
 * through argv (`env BASH_ENV=… bash`) is shown in the question, so it stays
 * possible. A trailing `*` names a prefix. docs/security-model.md,
 * "Start-up variables", says why each group is here.
 */
export const START_UP_VARS = [
  // The dynamic loader and the C library: libraries preloaded, modules and locales loaded from a path.
  "LD_*",
  "DYLD_*",
  "GLIBC_TUNABLES",
  "MALLOC_*",
  "GCONV_PATH",
  "LOCPATH",
  "NLSPATH",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
  // Shells: files sourced at start, functions imported, prompts expanded (command substitution), options, history written.
  "BASH_ENV",
  "ENV",
  "BASH_FUNC_*",
  "ZDOTDIR",
  "PROMPT_COMMAND",
  "PS1",
  "PS2",
  "PS4",
  "SHELLOPTS",
  "BASHOPTS",
  "IFS",
  "INPUTRC",
  "HISTFILE",
  // Where programs and their start-up and config files are found: which program argv[0] is, which ~/.bashrc or git config runs.
  "PATH",
  "HOME",
  "XDG_CONFIG_HOME",
  // Language runtimes: code run or modules loaded at start.
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONUSERBASE",
  "PYTHONWARNINGS",
  "PYTHONBREAKPOINT",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "PERL5DB",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "LUA_INIT*",
  // Programs other programs run on the side: git's (GIT_SSH_COMMAND, GIT_PAGER, GIT_CONFIG_*, GIT_DIR to a planted config…:
  // too many run programs to tell them apart), pagers, editors, browsers, password prompts.
  "GIT_*",
  "PAGER",
  "MANPAGER",
  "LESSOPEN",
  "LESSCLOSE",
  "EDITOR",
  "VISUAL",
  "BROWSER",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
] as const;

/** Whether `name` is one of START_UP_VARS (names are case-sensitive, as the programs read them). */
export function isStartUpVar(name: string): boolean {
  return START_UP_VARS.some((entry) => (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : name === entry));
}
