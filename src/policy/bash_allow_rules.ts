/**
 * bash_allow rules as data. Each rule carries the reason it reports and examples: `match`
 * commands are denied with that reason, `notMatch` commands are allowed, both judged against
 * `EXAMPLE_PREFIXES` in a worktree holding a `sub/` folder. Tests check every example.
 */

/** A fail-closed rule of the bash_allow parser. */
export interface BashRule {
  reason: string;
  match: string[];
  notMatch: string[];
}

/** The allowlist the rule examples are judged against. */
export const EXAMPLE_PREFIXES = (
  "echo ls cat head wc grep git find sed awk cd rg tar sort python3 node printf rm cp touch tee npm " +
  "env xargs bash sh timeout nohup sudo eval exec command builtin export time X=1 deno make unzip"
).split(" ");

/** `cd d0 && cd d1 && ... && ls`: n folders deep, decided in linear time. */
const cdChain = (n: number, op: string) =>
  Array.from({ length: n }, (_, i) => `cd d${i}`).join(` ${op} `) + ` ${op} ls`;

export const RULES = {
  budget: {
    reason: "the command is too long or complex to check",
    match: [
      "echo " + "{".repeat(40_000),
      cdChain(8, ";"),
      "ls " + "{a,b}".repeat(9),
      "ls " + "../".repeat(2_000),
    ],
    // Larger expansions pass here but ask unless sandboxed (tests/policy/bash_allow_unbounded.test.ts).
    notMatch: [cdChain(24, "&&"), "cd sub; cd sub; ls", "echo {a,b}{c,d}", "ls {1..1000}"],
  },
  empty: { reason: "empty command", match: ["", "   "], notMatch: ["ls"] },
  multiline: {
    reason: "multi-line commands are not allowed",
    match: ["ls\ntouch x", "ls\rtouch x", "echo 'a\nb'"],
    notMatch: ["ls\t-la"],
  },
  control: {
    reason: "control characters are not allowed",
    match: ["ls\x00", "echo \x1b[31m", "ls\x7f", "echo \x85"],
    notMatch: ["echo café"],
  },
  quote: {
    reason: "unbalanced quotes or a trailing backslash",
    match: ["echo 'a", 'echo "a', "echo a\\", "echo ${HOME"],
    notMatch: ["echo 'a'\"b\"", "echo a\\;b"],
  },
  heredoc: {
    reason: "heredocs and here-strings are not allowed",
    match: ["cat <<EOF", "cat <<-EOF", "cat <<< hi", "cat<<'X'"],
    notMatch: ["echo '<<EOF'", "cat < sub/f"],
  },
  substitution: {
    reason: "command substitution is not allowed",
    match: ["echo $(id)", 'echo "$(id)"', "echo `id`", 'echo "`id`"', "echo $((1+2))", "echo $[1]"],
    notMatch: ["echo '$(id)'", "echo '`id`'", 'echo "\\$(id)"', "echo \\`id\\`"],
  },
  process_substitution: {
    reason: "process substitution is not allowed",
    match: ["cat <(id)", "tee >(sh)", "diff <(ls) sub"],
    notMatch: ["echo '<(id)'"],
  },
  expansion: {
    reason: "this expansion or quoting form is not allowed",
    match: ["echo ${HOME:-x}", "echo ${!x}", "echo $'\\x3b'", 'echo $"hi"', "echo ${x@P}"],
    notMatch: ["echo $?", 'echo "${1}"', "echo a$", "echo '${x:-y}'"],
  },
  subshell: {
    reason: "subshells, groups and function definitions are not allowed",
    match: ["(rm -rf x)", "ls (x)", "f() { ls; }", "echo x | (cat)"],
    notMatch: ["echo '(x)'", "echo \\(x\\)"],
  },
  comment: {
    reason: "comments are not allowed",
    match: ["ls # && rm -rf /", "ls; #x"],
    notMatch: ["echo a#b", "echo '#x'"],
  },
  syntax: {
    reason: "unsupported shell syntax",
    match: ["ls &&", "&& ls", "ls ;; ls", "ls |", "ls >", "ls 2>&1x", "ls ; ; ls", "ls {fd}>x"],
    notMatch: ["ls;", "ls &", "ls 2>&1 | head", "ls >&2", "ls 2>&-", "ls |& cat"],
  },
  redirect: {
    reason: "redirection may write outside the worktree",
    match: [
      "echo x > /etc/passwd",
      "echo x >> ../out",
      "echo x > ~/out",
      "echo x > $HOME/out",
      "echo x &> /tmp/o",
      "echo x >| /tmp/o",
      "cat <> /tmp/o",
      "echo x >& /tmp/o",
      "echo x > *.txt",
      "cd sub && echo x > ../../o",
      "echo x 2>/tmp/err",
      "cd sub; echo x > ../o",
      "cd sub || cd . && echo x > ../o",
      "cat < /dev/tcp/127.0.0.1/80",
      "echo x > .git/hooks/pre-commit",
      "echo {} > .svc/config.json",
    ],
    notMatch: [
      "echo x > out.txt",
      "echo x >> sub/log",
      "ls > /dev/null 2>&1",
      "ls &>/dev/null",
      "cd sub && echo x > o",
      "cd sub || echo x > o",
      "cat < f",
    ],
  },
  keyword: {
    reason: "shell keywords are not allowed",
    match: ["! ls", "{ ls; }", "if ls; then ls; fi", "[[ -f x ]]", "for x in a; do ls; done"],
    notMatch: ["echo if then fi"],
  },
  assignment: {
    reason: "variable assignments are not allowed",
    match: ["X=1", "PATH=. ls", "GIT_EXTERNAL_DIFF=x git diff", "ls; LD_PRELOAD=x ls"],
    notMatch: ["echo X=1"],
  },
  dynamic_command: {
    reason: "the command word must be literal (no expansion, glob or tilde)",
    match: ["$X", "${CMD} -la", "l* x", "~/bin/tool", "{ls,rm} x"],
    notMatch: ["'ls' -la", "\\ls"],
  },
  wrapper: {
    reason: "commands that run another command are not allowed",
    match: [
      "env rm -rf x",
      "/usr/bin/env ls",
      "xargs rm",
      "ls | xargs rm",
      "sh -c 'rm x'",
      "bash -c ls",
      "eval ls",
      "exec ls",
      "nohup ls",
      "timeout 5 ls",
      "time ls",
      "sudo ls",
      "command ls",
      "builtin echo",
      ". ./x",
      "npm exec rm",
      "npm x -- rm",
    ],
    notMatch: ["npm test", "echo env"],
  },
  shell_state: {
    reason: "builtins that change shell state are not allowed",
    match: ["export PATH=.", "printf -v PATH .", "cd sub; hash -p ./x ls", "read PATH < f"],
    notMatch: ["printf '%s' x"],
  },
  cd: {
    reason: "cd must name a literal folder inside the worktree",
    match: [
      "cd",
      "cd /",
      "cd ..",
      "cd ~",
      "cd -",
      "cd $HOME",
      "cd sub/../..",
      "cd sub && cd ../..",
      "cd .git",
      "cd .svc",
    ],
    notMatch: ["cd sub", "cd sub && ls", "cd .", "cd ./sub/"],
  },
  prefix: {
    reason: "not in bash_allow",
    match: ["lsblk", "rm2 x", "ls; curl x", "ls && dd if=x", "> out.txt", "ls | bc"],
    notMatch: ["ls -la", "git status -s", "ls && echo ok || echo no"],
  },
  dynamic_args: {
    reason: "arguments of this command must be literal",
    match: ["find . $X", "sed $S f", "git log $X", "awk $P f", "find . -name *.ts"],
    notMatch: ["echo $?", "ls *.ts"],
  },
  find_exec: {
    reason: "find actions that run commands or write files are not allowed",
    match: [
      "find . -exec rm {} ;",
      "find . -execdir sh -c x \\;",
      "find . -ok rm {} +",
      "find . -delete",
      "find . -fprint /tmp/x",
    ],
    notMatch: ["find . -name '*.ts' -type f", "find sub -maxdepth 1"],
  },
  sed_exec: {
    reason: "sed in-place edits, script files and the e, w and W commands are not allowed",
    match: [
      "sed -i s/a/b/ f",
      "sed --in-place s/a/b/ f",
      "sed -ni p f",
      "sed -f x.sed f",
      "sed 's/a/b/e' f",
      "sed 's/a/b/w /tmp/x' f",
      "sed '1e id' f",
      "sed -e p -e 'w x' f",
      "sed 'W x' f",
      "sed s/a/b/gw f",
      "sed -n p -e '1e id' f",
      "sed s/a/b/ f -i",
      "sed '$a x' -i .git/config",
      "sed -n p f --in-place=.bak",
      "sed p f -f x.sed",
      "sed p f -s -l 5",
      "sed p f --expr='1e id'",
    ],
    notMatch: [
      "sed -n 1,5p f",
      "sed -E 's/(a|b)/x/g' f",
      "sed '/x/d;s,a,b,2' f",
      "sed 'y/ab/cd/' f",
      "sed p f -n",
      "sed -n f -e p",
      "sed -- p -i",
      "sed 'r f' f",
    ],
  },
  awk_exec: {
    reason: "awk programs with system(), pipes, output redirection or script files are not allowed",
    match: [
      "awk 'BEGIN{system(\"id\")}'",
      "awk '{print | \"sh\"}' f",
      "awk '{print > \"/tmp/x\"}' f",
      "awk 'BEGIN{\"id\" | getline}'",
      "awk -f x.awk f",
      "awk '@load \"x\"'",
      "awk 'BEGIN{getline l < \"f\"; print l}'",
    ],
    notMatch: ["awk '{print $1}' f", "awk -F: '$3 < 5 {print}' f", "awk -v x=1 '{print x}' f"],
  },
  git_option: {
    reason: "git options that run programs, write files or change config are not allowed",
    match: [
      "git -c core.pager=id log",
      "git -C /tmp status",
      "git --git-dir=/x log",
      "git --exec-path=/x log",
      "git diff --output=/tmp/x",
      "git diff --ext-diff",
      "git log --textconv",
      "git config core.pager id",
      "git clone -u x y",
      "git difftool",
      "git grep -Oid x",
      "git rebase -x id",
      "git st",
      "git help -w log",
      "git submodule foreach id",
      "git grep --open='id' x",
      "git log --ext",
      "git diff HEAD --out=x",
    ],
    notMatch: [
      "git status -s",
      "git --no-pager log -5",
      "git config --get user.name",
      "git log -c",
      "git diff --text",
      "git log --oneline -- sub",
    ],
  },
  inline_code: {
    reason: "interpreter inline code is not allowed",
    match: [
      "python3 -c 'import os'",
      "python3 -Bc x",
      "node -e 1",
      "node --eval=1",
      "node -pe 1",
      "node --import=data:text/javascript,1 x.js",
      "deno run data:,1",
      "deno eval 1",
    ],
    notMatch: ["python3 -m unittest -c", "python3 x.py -c", "node x.js"],
  },
  exec_option: {
    reason: "options that run another program are not allowed",
    match: [
      "rg --pre=./x foo",
      "tar --to-command=sh -xf a.tar",
      "tar -I ./x -xf a.tar",
      "tar xIf ./x a.tar",
      "sort --compress-program=sh f",
      "make --eval='x:;touch y'",
      "tar -xf a.tar --to-com='touch x'",
      "sort f --compress-p=sh",
      "make all --ev='x:;touch y'",
    ],
    notMatch: ["rg -n foo", "tar -xzf a.tar", "sort -n f", "tar -xf a.tar --checkpoint"],
  },
  write_path: {
    reason: "file-writing commands may only name literal paths inside the worktree",
    match: [
      "rm -rf /",
      "rm ../x",
      "cp f /tmp/",
      "cp -t/tmp f",
      "cp --target-directory=/tmp f",
      "touch ~/x",
      "rm $X",
      "tee /etc/x",
      "sort -o /tmp/x f",
      "unzip a.zip -d /tmp",
      "cp f .git/hooks/post-commit",
      "git clone x /tmp/y",
      "git archive -o /tmp/a.zip HEAD",
      "cp -t.git config",
      "cp -vt.svc config.json",
      "sort f -o.git/config",
      "rm /dev/null",
      "cp -f f /dev/null",
      "touch /dev/stdout",
    ],
    notMatch: [
      "rm -rf sub/x",
      "cp f sub/",
      "touch 'a b'",
      "tee out.txt",
      "rm *.tmp",
      "tee /dev/null",
    ],
  },
} satisfies Record<string, BashRule>;

/** Identifier of a rule in `RULES`. */
export type RuleId = keyof typeof RULES;
