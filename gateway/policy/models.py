"""The rules file schema (pydantic). Used when rules are compiled, never on the hook path.

One model describes every layer file; which keys a layer may use is enforced by
gateway.policy.merge (project and local layers may only tighten).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_FLAG_DOC = "an option as written, starting with '-' (e.g. -o or --output)"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _flatten(values, depth=0):
    """A flag list may hold lists (a YAML alias of another entry's list: `[*gitlog_safe,
    --cached]`): they are spliced in (at most four levels deep)."""
    if not isinstance(values, list) or depth > 4:
        return values
    out = []
    for v in values:
        out.extend(_flatten(v, depth + 1) if isinstance(v, list) else [v])
    return out


def _check_flags(values: list[str]) -> list[str]:
    for v in values:
        if not v.startswith("-") or v in ("-", "--") or any(c.isspace() for c in v):
            raise ValueError(f"{v!r} is not {_FLAG_DOC}")
    return values


class Limits(_Strict):
    max_command_length: int = Field(default=32768, ge=16, le=1_048_576)
    max_segments: int = Field(default=50, ge=1, le=1000)


class Compound(_Strict):
    enabled: bool = True


class SafeSuffixes(_Strict):
    literal: list[str] = []
    echo_after: list[Literal["||", "&&"]] = []

    @field_validator("literal")
    @classmethod
    def _space_first(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s.startswith(" ") or len(s.strip()) == 0:
                raise ValueError(f"suffix {s!r} must start with one space and hold an operator")
        return v


class Interpreter(_Strict):
    aliases: list[str] = []
    safe_flags: list[str] = []
    dangerous_flags: list[str] = []
    dangerous_long_flags: list[str] = []
    safe_modules: list[str] = []
    # a script of this base name is the named catalogue tool's entry point in the project
    # (Django's manage.py is django-admin with the project's settings): run as the HEAD
    # commit holds it, it is judged as that tool (gateway.validator.entry_scripts)
    entry_scripts: dict[str, str] = {}
    # a command line of exactly one of these words prints the version or the help and exits
    # without running code (`python3 --version`, `node -v`)
    info_flags: list[str] = []

    _i = field_validator("info_flags")(lambda cls, v: _check_flags(v))

    @field_validator("safe_flags", "dangerous_flags")
    @classmethod
    def _letters(cls, v: list[str]) -> list[str]:
        for f in v:
            if len(f) != 1 or not f.isalnum():
                raise ValueError(f"{f!r}: short flags are single letters without '-'")
        return v

    @field_validator("dangerous_long_flags")
    @classmethod
    def _long(cls, v: list[str]) -> list[str]:
        for f in v:
            if not f.startswith("--") or len(f) < 3:
                raise ValueError(f"{f!r}: long flags start with '--'")
        return v

    @model_validator(mode="after")
    def _disjoint(self):
        both = set(self.safe_flags) & set(self.dangerous_flags)
        if both:
            raise ValueError(f"flags both safe and dangerous: {sorted(both)}")
        return self


class Wrapper(_Strict):
    value_flags: list[str] = []
    skip_positionals: int = Field(default=0, ge=0, le=4)
    skip_assignments: bool = False
    # never read-only itself (other privileges, lifetime or process image: sudo, nohup,
    # watch): the effects analysis still looks at the command it runs
    runner: bool = False
    # its arguments are joined by spaces and run as shell code (eval, watch)
    joined: bool = False
    # it changes nothing a decision depends on (timeout, nice): the line is judged as the
    # command it runs, its own options limited to safe_flags (gateway/validator/wrapped.py)
    transparent: bool = False
    safe_flags: list[str] = []

    _v = field_validator("value_flags")(lambda cls, v: _check_flags(v))


class Examples(_Strict):
    allow: list[str] = []
    ask: list[str] = []


class GlobalOptions(_Strict):
    value_flags: list[str] = []
    text_flags: list[str] = []
    unsafe_flags: list[str] = []
    cwd_flags: list[str] = []
    flags: list[str] = []
    anywhere_value_flags: list[str] = []

    _v = field_validator("value_flags", "text_flags", "unsafe_flags", "cwd_flags", "flags",
                         "anywhere_value_flags")(lambda cls, v: _check_flags(v))


class SharedOptions(_Strict):
    """Options every subcommand of a tool accepts (go's build flags, cargo's --config,
    npm's config options): merged into each subcommand entry, at every depth."""

    value_flags: list[str] = []
    text_flags: list[str] = []
    unsafe_flags: list[str] = []
    write_flags: list[str] = []
    config_flags: list[str] = []
    safe_flags: list[str] | None = None
    # how every subcommand's options are written (CommandEntry.flag_style)
    flag_style: Literal["words"] | None = None

    _v = field_validator("value_flags", "text_flags", "unsafe_flags", "write_flags",
                         "config_flags")(lambda cls, v: _check_flags(v))

    @model_validator(mode="after")
    def _values(self):
        missing = (set(self.text_flags) | set(self.write_flags)) - set(self.value_flags)
        if missing:
            object.__setattr__(self, "value_flags", list(self.value_flags) + sorted(missing))
        return self


CHECKS = ("gateway-verify", "gateway-spec-step", "sed", "awk", "jq", "find", "rm", "yq", "compileall", "coverage-run", "git-checkout", "git-switch", "git-stash-apply", "git-fetch",
          "git-restore", "git-reset", "git-config", "gh-api", "make", "go", "xxd", "tsc",
          "cargo", "pytest", "date", "tar", "zip", "unzip", "ln", "git-merge",
          "git-cherry-pick", "git-stash-push", "git-remote", "git-var",
          # build, test and package tools (checks/buildtools/)
          "npm", "npm-script", "npm-exec", "pkg-run", "pip", "downloads", "formatter", "mypy",
          "eslint", "js-test", "gofmt", "pyright", "venv", "bare-install", "git-clean",
          "go-cover", "cargo-clean", "go-generate", "django-admin", "printenv", "ps",
          "npm-config-get", "flask", "alembic", "go-clean", "go-mod-download",
          "golangci-lint", "go-analyzer", "git-rebase", "tox", "nox", "sqlite3",
          # Maven and Gradle (checks/jvm.py)
          "jvm-build", "jar", "javap", "curl")

# How the effects analysis (gateway/effects/analysis/) reads an entry: `flags` derives what the
# command writes from the entry's own lists (writes/edit, write_flags, output_flags,
# tree_flags, unsafe_flags, the safe_flags allowlist); `read` reads and prints only,
# whatever its options; the others name a handler in gateway/effects/analysis/ (parsing that
# cannot be data: cp's destinations, sed's in-place option, find's actions, git).
EFFECTS = ("flags", "read", "copy", "move", "link", "install", "dd", "sed", "awk", "find",
           "xxd", "uniq", "git", "gateway", "formatter", "curl")


class BuildTool(_Strict):
    """A build tool that takes several words, each a step it runs (Maven's phases and plugin
    goals, Gradle's tasks), read by checks/jvm.py."""
    # the words it may be given (a Gradle task may be written :module:task); any other asks
    goals: list[str]
    # the system properties -Dname[=value] it may be given (exact names); any other asks
    properties: list[str] = []
    # the project files it runs as the project's own code (the build files, their
    # configuration): only as the HEAD commit holds them (GW782); globs one level deep
    recipes: list[str] = []
    # the project's wrapper script at its root (./mvnw, ./gradlew) is this tool, when it and
    # the wrapper's files (its properties name the distribution it downloads and runs) are
    # the HEAD commit's
    wrapper: str | None = None
    wrapper_files: list[str] = []


class CommandEntry(_Strict):
    args: Literal["paths", "text", "pattern_then_paths", "text_then_paths", "none"] = "paths"
    max_positionals: int | None = Field(default=None, ge=0)
    writes: bool = False
    # the command changes the files it names (cp, mv, chmod, ln): allowed only in permission
    # modes that accept edits (acceptEdits); elsewhere it needs the human (GW721)
    edit: bool = False
    value_flags: list[str] = []
    text_flags: list[str] = []
    unsafe_flags: list[str] = []
    # options whose value is a file or directory the command writes (--outDir DIR): judged as
    # a write (containment and the protected surface); an abbreviation of one asks
    write_flags: list[str] = []
    # an allowlist: if present, every option the command may be given (with value_flags,
    # text_flags, write_flags and optional_flags, which count as listed); any other option
    # asks, and GNU abbreviations of long options are resolved against the full list
    safe_flags: list[str] | None = None
    # options that take a value only glued to them (-w16, --width=16), never the next word
    optional_flags: list[str] = []
    # a command line of exactly one of these words prints the version or the help
    info_flags: list[str] = ["--version", "--help"]
    # a tool whose every subcommand prints its help when given only one of these words
    # (`git log --help` is `git help log`): `TOOL SUB WORD` is allowed like `TOOL --help`
    subcommand_help: list[str] = []
    # "names": the positional paths are looked at, not read (ls, stat, du): a secret's name
    # among them is no read of the secret
    reads: Literal["contents", "names"] = "contents"
    # the command's complete list of long options (git's `--git-completion-helper-all`): a
    # long option written shorter (git and getopt_long accept an unambiguous prefix) is
    # allowed only when every listed option it can stand for is in safe_flags
    options: list[str] | None = None
    check: str | None = None
    # the command reads whole directory trees, walked as this kind (phase5_recursive)
    recursive: Literal["grep", "rg", "diff", "git-grep", "git-diff", "tree"] | None = None
    # a word `@FILE` makes the command read more arguments from FILE (binutils, argparse's
    # fromfile_prefix_chars, clap's argfile): they cannot be checked, so any `@word` asks
    response_files: bool = False
    # git: a positional (or -L value) <rev>:<path> names a file whose path may be a secret
    revision_paths: bool = False
    # git: the command prints tracked files' contents ("always": git diff, show, grep,
    # cat-file; "patch": only with a patch option, git log -p): it asks when the index tracks
    # a path the secret rules name (a committed .env would be printed)
    prints_contents: Literal["always", "patch"] | None = None
    # options whose value is a file read as configuration or code (a makefile, an rc file):
    # standard input and devices (`-`, /dev/stdin) are refused, they carry another segment's
    # text (`echo 'x:; id' | make -f /dev/stdin x`)
    config_flags: list[str] = []
    # coreutils' target directory (cp, mv, ln): with -t DIR, or when the last operand is an
    # existing directory, each source is written to DIR/<its base name>: those are judged too
    into_directory: bool = False
    subcommands: dict[str, "CommandEntry"] | None = None
    default_subcommand: str | None = None
    # a word that is not one of the subcommands is handled by this one, the word kept as its
    # first argument (`yarn build` is `yarn run build`)
    fallback_subcommand: str | None = None
    # the command alone (no subcommand word) is not one of the allowed forms
    subcommand_required: bool = False
    global_: GlobalOptions | None = Field(default=None, alias="global")
    # options every subcommand accepts: one place for them, merged into each subcommand
    shared: SharedOptions | None = None
    # a formatter's (or fixer's) file types, as base-name globs: what it rewrites below the
    # directories it is given (checks/buildtools/)
    formats: list[str] = []
    # what the effects analysis (both hooks) derives from this entry; absent: the command is
    # not known to be read-only (see EFFECTS)
    effects: str | None = None
    # options whose value is a file the command writes, also where the validator does not
    # allow them (they are in unsafe_flags too: sort -o): the guards see the write
    output_flags: list[str] = []
    # options that make the writes of the positional paths cover whole trees (rm -r, chmod -R)
    tree_flags: list[str] = []
    # the options end at the first operand, as a getopt without GNU permutation reads them
    # (less): a later word that starts with '-' is an operand (a file read), not an option
    options_first: bool = False
    # how the options are written: "words" is Go's flag package (every word one option, one or
    # two dashes, -name=value or -name VALUE for value_flags: `go list -deps` is -deps, not
    # -d -e -p -s); subcommands inherit it from their tool
    flag_style: Literal["words"] | None = None
    # a word `+TEXT` among the options is a command the program runs at start (less +cmd):
    # it asks (GW704), and the effects analysis does not know it
    plus_commands: bool = False
    # options that make the command only print what it would do (git clean -n): a
    # subcommand_ask rule naming just this subcommand does not cover the form in which one is
    # in force at the end (git reads `--no-dry-run` as turning it off again; the last wins),
    # and every option is in the allowlist; this entry judges that form
    dry_run: list[str] = []
    # options that act on an operation already under way (git rebase --continue): a
    # subcommand_ask rule naming just this subcommand (which asks to start one) does not
    # cover the form whose only word is one of them; this entry's check judges that form
    resumes: list[str] = []
    # the words after `--` are the options of the program it hands them to (cargo fmt --
    # --check is rustfmt's --check): a `dry_run` option there counts too
    dry_run_after_dashes: bool = False
    # a checker's options that make it rewrite the files it checks (prettier --write, gofmt
    # -w); without one it only reports (the effects analysis, `effects: formatter`)
    fix_flags: list[str] = []
    # the tool's `shared` options are not merged into this subcommand: another program
    # reads its options (`go tool cover` is cover, not go's build)
    own_options: bool = False
    # the gateway's own workflow commands (rules/workflow.yaml, `effects: gateway`): the
    # workflow state change a subcommand makes (only the Lead: GW807), the options without
    # which it is a view, whether it registers the caller's role, the permission-surface
    # rewrite it makes (GW835), and whether the Lead may run it in delegate mode (Phase B)
    state_op: str | None = None
    state_op_with: list[str] = []
    registers: bool = False
    surface_op: str | None = None
    delegate: bool = False
    # a build tool whose words are steps (Maven, Gradle): checks/jvm.py
    build_tool: BuildTool | None = None
    # the names (globs) of environment variables that hold no secret by what they are: a
    # place or a setting the system or a toolchain defines (printenv PATH; checks/tools.py)
    public_names: list[str] = []
    examples: Examples | None = None

    _v = field_validator("value_flags", "text_flags", "unsafe_flags", "write_flags",
                         "config_flags", "optional_flags", "info_flags", "subcommand_help",
                         "output_flags", "tree_flags", "dry_run", "fix_flags", "resumes")(
        lambda cls, v: _check_flags(v))
    _flat = field_validator("value_flags", "text_flags", "unsafe_flags", "safe_flags",
                            "options", mode="before")(lambda cls, v: _flatten(v))

    @field_validator("safe_flags", "options")
    @classmethod
    def _flags_or_none(cls, v):
        return v if v is None else _check_flags(v)

    @field_validator("effects")
    @classmethod
    def _known_effects(cls, v):
        if v is not None and v not in EFFECTS:
            raise ValueError(f"unknown effects {v!r}; known: {', '.join(EFFECTS)}")
        return v

    @field_validator("check")
    @classmethod
    def _known_check(cls, v):
        if v is not None and v not in CHECKS:
            raise ValueError(f"unknown check {v!r}; known: {', '.join(CHECKS)}")
        return v

    @model_validator(mode="after")
    def _default_sub(self):
        if self.default_subcommand and not (self.subcommands
                                            and self.default_subcommand in self.subcommands):
            raise ValueError(f"default_subcommand {self.default_subcommand!r} is not one of "
                             "the subcommands")
        if self.fallback_subcommand and not (self.subcommands
                                             and self.fallback_subcommand in self.subcommands):
            raise ValueError(f"fallback_subcommand {self.fallback_subcommand!r} is not one of "
                             "the subcommands")
        missing = (set(self.text_flags) | set(self.write_flags)) - set(self.value_flags)
        if missing and self.check is None:
            # text flags take a value too; list them in value_flags as well
            object.__setattr__(self, "value_flags", list(self.value_flags) + sorted(missing))
        return self


class GitOutputs(_Strict):
    """Where a git subcommand that is not in one of its read-only forms writes: the value of
    a `file` option is a file, of a `tree` option a directory it fills; with none of
    `cwd_unless` given it writes into the current directory (git format-patch). `scopes`
    and `default` name the configuration file `git config` writes (`.git/...`: the
    enclosing repository's)."""

    file: list[str] = []
    tree: list[str] = []
    cwd_unless: list[str] = []
    scopes: dict[str, str] = {}
    default: str | None = None
    # configuration keys whose value runs nothing (git config user.name): asked, not denied
    plain_keys: list[str] = []

    _v = field_validator("file", "tree", "cwd_unless")(lambda cls, v: _check_flags(v))


class GitForm(_Strict):
    """One form of a git subcommand, as an allowlist: it matches when every condition holds
    (the first word, every option listed, the required options, the operand count)."""

    # read: writes nothing; repository: changes the index, refs, HEAD, the stash or runs the
    # configured tool, no working-tree file but its `outputs`; paths: writes the files its pathspecs name
    # (literal ones; else the working tree, or with `fallback: cwd` the current directory);
    # move: git mv (the last operand is the destination)
    effect: Literal["read", "repository", "paths", "move"]
    # the first argument is one of these words (a sub-subcommand)
    first: list[str] | None = None
    # with `first`: no argument at all matches too
    bare: bool = False
    # every option that may be given (value_flags and optional_flags are not implied)
    safe_flags: list[str] = []
    # options taking the next word (the catalogue's git entry adds its own: one source)
    value_flags: list[str] = []
    # options taking a value only glued (--abbrev=7, -n5)
    optional_flags: list[str] = []
    # one of these must be given
    requires: list[str] = []
    # never allowed here, even where `like` lists them (difftool's -t is its --tool)
    unsafe_flags: list[str] = []
    # a catalogue git entry (`[log]`, `[stash, show]`) whose options count as listed too,
    # apart from its unsafe_flags and output_flags (git stash list hands them to git log)
    like: list[str] = []
    max_positionals: int | None = Field(default=None, ge=0)
    min_positionals: int = Field(default=0, ge=0)
    # the complete list of long options of this form (a sub-subcommand's own: git stash
    # push), for abbreviations; else `like`'s entry's, the subcommand's, the catalogue's
    options: list[str] | None = None
    # paths: only the operands after `--` are pathspecs (git checkout -- FILE)
    after_dashdash: bool = False
    # option values may not be empty or start with '-' (a branch name)
    plain_values: bool = False
    # paths: without a literal pathspec the command writes the current directory's tree
    fallback: Literal["worktree", "cwd"] = "worktree"

    _v = field_validator("safe_flags", "value_flags", "optional_flags", "requires",
                         "unsafe_flags")(lambda cls, v: _check_flags(v))
    _flat = field_validator("safe_flags", "value_flags", "optional_flags", "requires",
                            "unsafe_flags", "options", mode="before")(
        lambda cls, v: _flatten(v))

    @field_validator("options")
    @classmethod
    def _flags_or_none(cls, v):
        return v if v is None else _check_flags(v)


class GitSubcommand(_Strict):
    """What the effects analysis knows of one git subcommand beyond its catalogue entry."""

    # the subcommand's complete list of long options (`git SUB --git-completion-helper-all`):
    # abbreviations resolve against it as git's option parser does; without it (and without
    # one in the catalogue's entry) no abbreviation is resolved: it matches no form
    options: list[str] | None = None
    # git's option parser stops at the first operand (git config KEY VALUE -l: -l is a value)
    options_first: bool = False
    # no argument (and with implied_before_options, a first argument that is an option) is
    # this sub-subcommand (`git reflog -3` is `git reflog show -3`)
    implied: str | None = None
    implied_before_options: bool = False
    # first words that run any command (git submodule foreach, git bisect run)
    runs_command: list[str] = []
    # arguments outside every form: `program` (it may run a program of the caller's choice:
    # unknown, and it may commit or push), `unknown`, or nothing more than a git change
    unmatched: Literal["program", "unknown"] | None = None
    outputs: GitOutputs | None = None
    forms: list[GitForm] = []

    _flat = field_validator("options", mode="before")(lambda cls, v: _flatten(v))

    @field_validator("options")
    @classmethod
    def _flags_or_none(cls, v):
        return v if v is None else _check_flags(v)


class GitEffects(_Strict):
    """What git's subcommands do, beyond the catalogue's git entry (which lists the ones the
    validator may allow): every git command, the ones that create or publish commits, the
    ones that rewrite working-tree files, and options of read-only ones that run a program."""

    commands: list[str] = []
    commits: list[str] = []
    publishes: list[str] = []
    worktree: list[str] = []
    # global options (before the subcommand) beyond the catalogue's git `global` block
    global_value_flags: list[str] = []
    global_flags: list[str] = []
    # global options whose value is only glued (`--exec-path=DIR`; bare, it prints the path)
    global_optional_flags: list[str] = []
    # the forms, outputs and option lists of subcommands (read by gateway/effects/analysis/git.py)
    subcommands: dict[str, GitSubcommand] = {}


class Effects(_Strict):
    """The effects model's own data (rules/effects.yaml): what the catalogue does not
    describe. A name is described here or in the catalogue, never both."""

    # programs the catalogue does not list (the validator asks for them), described with the
    # catalogue's fields; each has `effects`
    programs: dict[str, CommandEntry] = {}
    # programs that run a command given in their arguments and are never read-only themselves
    # and that are not among the `wrappers`: name -> the same fields as a wrapper
    runners: dict[str, Wrapper] = {}
    # shells: `-c CODE` is analysed, a script or standard input is not visible
    shells: list[str] = []
    # interpreters beyond the `interpreters` table (never read-only but for --version), and
    # name prefixes that are interpreters too (python3.14, ruby3.2)
    interpreters: list[str] = []
    interpreter_prefixes: list[str] = []
    # builtins beyond `shell_builtins` that run code or change how later commands run
    code_builtins: list[str] = []
    # programs that start another agent session, and their arguments that only print
    agents: list[str] = []
    agent_info: list[list[str]] = []
    # words that alone print an interpreter's version (`node --version`)
    version_words: list[str] = []
    git: GitEffects = GitEffects()


class DenyExamples(_Strict):
    match: list[str] = []
    not_match: list[str] = []


class DenyRule(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,63}$")
    message: str = Field(min_length=3)
    command: list[str] = []
    command_prefix: list[str] = []
    flags_any: list[str] = []
    words_any: list[str] = []
    targets: list[str] = []
    # options whose value (glued or the next word) is the target: with it, `targets` are
    # compared with those values only, and one of the options must be given
    option_targets: list[str] = []
    arg_globs: list[str] = []
    redirect_globs: list[str] = []
    pipe_from: list[str] = []
    pipe_to: list[str] = []
    substitution_from: list[str] = []
    substitution_to: list[str] = []
    special: Literal["fork_bomb"] | None = None
    examples: DenyExamples | None = None

    @model_validator(mode="after")
    def _has_matcher(self):
        if not (self.command or self.command_prefix or self.redirect_globs or self.pipe_from
                or self.substitution_from or self.special):
            raise ValueError("a deny rule needs command, command_prefix, redirect_globs, "
                             "pipe_from, substitution_from or special")
        if bool(self.pipe_from) != bool(self.pipe_to):
            raise ValueError("pipe_from and pipe_to go together")
        if bool(self.substitution_from) != bool(self.substitution_to):
            raise ValueError("substitution_from and substitution_to go together")
        return self


class EnvFiles(_Strict):
    """The grammar of env file names (gateway.secrets.names). `names`, `prefixes`,
    `suffixes` and `plain_prefixes` make more names secrets (any layer may add);
    `source_extensions` and `template_words` make fewer (user layer only)."""

    names: list[str] = []
    prefixes: list[str] = []
    suffixes: list[str] = []
    plain_prefixes: list[str] = []
    source_extensions: list[str] = []
    template_words: list[str] = []

    @field_validator("names", "prefixes", "suffixes", "plain_prefixes", "source_extensions",
                     "template_words")
    @classmethod
    def _parts(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s or "/" in s or any(c.isspace() for c in s) or "*" in s or "?" in s:
                raise ValueError(f"{s!r} is not a part of a file name")
        return v


class SecretContent(_Strict):
    """The content scanner (gateway.secrets.content): detect-secrets plugin names (any layer
    may add), the largest file it scans and how long a hook waits for it (user layer)."""

    plugins: list[str] = []
    max_bytes: int | None = None
    timeout_ms: int | None = None
    full_scan_extensions: list[str] = []

    @field_validator("max_bytes", "timeout_ms")
    @classmethod
    def _positive(cls, v):
        if v is not None and not 0 < v <= 1 << 30:
            raise ValueError(f"{v!r} is not a positive size or time")
        return v


class Secrets(_Strict):
    patterns: list[str] = []
    directories: list[str] = []
    exceptions: list[str] = []
    env_files: EnvFiles | None = None
    content: SecretContent | None = None
    # a name that ends in one of these is also judged without it (`.env.bak`, `id_rsa~`)
    backup_suffixes: list[str] = []

    @field_validator("backup_suffixes")
    @classmethod
    def _suffixes(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s or "/" in s or any(c.isspace() for c in s) or s in (".", ".."):
                raise ValueError(f"{s!r} is not a file name suffix")
        return v


class ClientSensitive(_Strict):
    """The paths the Claude Code client treats as sensitive on its own (it asks before it
    edits them, even in acceptEdits): a path with one of `directories` among its
    components, a file named one of `names`, a path with the components of one of
    `paths` in a row. The gateway never allows a Bash write of them (GW783)."""

    directories: list[str] = []
    names: list[str] = []
    paths: list[str] = []

    @field_validator("directories", "names")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        for s in v:
            if not s or "/" in s or s in (".", ".."):
                raise ValueError(f"{s!r} is not a file or directory name")
        return v


class RemoteArguments(_Strict):
    """How a tool's arguments reach the network (gateway.validator.network): the kind its
    arguments are read as, the options whose value is a URL, its own default hosts."""

    arguments: Literal["url", "package", "requirement", "module", "remote", "none"] = "none"
    # which of its non-option words (after the subcommand, from 0) are read that way; none
    # given: every one (`npx PKG ARGS...`: only the first; `git fetch REMOTE REFSPEC...`)
    positions: list[int] | None = None
    # the non-option word at this position is a command, and the words after it are that
    # command's (`npx tsc -p tsconfig.json`: -p is tsc's project file, not npx's --package)
    command_at: int | None = None
    flags: list[str] = []
    hosts: list[str] = []


class StateInputs(_Strict):
    """What the project's tools read besides the files they are given (gateway.validator.
    state_model): an earlier part of the same command writing one of `names` (base-name
    globs) makes a later tool run ask; `tools` adds globs for one tool (`go generate` reads
    the directives in *.go files)."""

    names: list[str] = []
    tools: dict[str, list[str]] = {}


class DependencyCache(_Strict):
    """A dependency cache outside the project whose files may be read (rules/default.yaml:
    dependency_caches; gateway.validator.caches)."""

    name: str
    dir: str | None = None
    env: str | None = None
    below: list[str] = [""]
    go_env: Literal["GOMODCACHE", "GOCACHE"] | None = None
    reads: Literal["contents", "names"] = "contents"

    @field_validator("dir")
    @classmethod
    def _home(cls, v):
        if v is not None and (not v.startswith("~/") or ".." in v.split("/")):
            raise ValueError(f"{v!r} must be a directory below ~/")
        return v

    @field_validator("below")
    @classmethod
    def _below(cls, v):
        for d in v:
            if d.startswith("/") or ".." in d.split("/"):
                raise ValueError(f"{d!r} must be relative, without ..")
        return v


class Floors(_Strict):
    always_ask: list[str] = []
    subcommand_ask: list[str] = []


class Removals(_Strict):
    """User layer only: drop entries of the layers below (never a floor)."""

    always_ask: list[str] = []
    subcommand_ask: list[str] = []
    catalogue: list[str] = []


class RulesFile(BaseModel):
    """One rules file (any layer). Top-level keys starting with "x-" hold YAML anchors."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    version: Literal[1] = 1
    limits: Limits | None = None
    compound: Compound | None = None
    safe_suffixes: SafeSuffixes | None = None
    containment_dirs: list[str] | None = None
    project_bin_dirs: list[str] | None = None
    system_bin_dirs: list[str] | None = None
    allowed_dirs: list[str] | None = None
    interpreters: dict[str, Interpreter] | None = None
    shell_builtins: list[str] | None = None
    wrappers: dict[str, Wrapper] | None = None
    always_ask: list[str] | None = None
    floors: Floors | None = None
    subcommand_ask: list[str] | None = None
    secrets: Secrets | None = None
    protected_paths: list[str] | None = None
    autorun: list[str] | None = None
    client_sensitive: ClientSensitive | None = None
    remote_arguments: dict[str, RemoteArguments] | None = None
    state_inputs: StateInputs | None = None
    # environment variables a command may be given before its name (RUST_LOG=debug cargo
    # test): the variable, and the base-name globs of the literal values that change only
    # what it prints (a log level, colour, CI's non-interactive output), never which program
    # runs or which files it reads; any other assignment asks (GW211)
    inert_env: dict[str, list[str]] | None = None
    # variables that are a tool's own configuration (GOFLAGS: go's flags, RUSTFLAGS: rustc's,
    # DJANGO_SETTINGS_MODULE: the module pytest-django imports): `NAME=value tool ...` is
    # judged as `tool ...` run with NAME=value in its environment, by the check that judges
    # the same variable in the hook's environment; when no check reads it, it asks (GW211)
    command_env: list[str] | None = None
    dependency_caches: list[DependencyCache] | None = None
    catalogue: dict[str, CommandEntry] | None = None
    deny: list[DenyRule] | None = None
    remove: Removals | None = None
    effects: Effects | None = None

    @field_validator("containment_dirs", "project_bin_dirs")
    @classmethod
    def _relative(cls, v):
        for d in v or []:
            if d.startswith("/") or d.startswith("~") or ".." in d.split("/") or not d.strip("/"):
                raise ValueError(f"{d!r} must be a directory relative to the project root")
        return v

    @field_validator("system_bin_dirs", "allowed_dirs")
    @classmethod
    def _absolute(cls, v):
        for d in v or []:
            if not (d.startswith("/") or d.startswith("~/")) or ".." in d.split("/"):
                raise ValueError(f"{d!r} must be an absolute directory (or ~/...)")
        return v

    @field_validator("subcommand_ask")
    @classmethod
    def _subcommand_rules(cls, v):
        for rule in v or []:
            words = rule.split()
            if len(words) < 2:
                raise ValueError(f"{rule!r}: write a command and at least one subcommand word "
                                 "(e.g. 'git push')")
        return v


CommandEntry.model_rebuild()
