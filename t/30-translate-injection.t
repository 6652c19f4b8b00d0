#!/bin/bash
# covers: src/translate/ src/pod/
# 30-translate-injection: hostile strings in command, args, env and annotation
# values never run: the rendered script, executed by bash with a stub in place
# of slurmlink-shim, creates no file and calls the stub with exactly the
# expected words; the values reach shim.json byte for byte.
source "$(dirname "$0")/lib.sh"
plan 10
W=$(mktemp -d /tmp/sl-inj.XXXXXX)
trap 'rm -rf "$W"' EXIT
PWNED=$W/pwned
printf '#!/bin/bash\nprintf "%%s\\n" "$@" > "$STUB_OUT"\n' > "$W/stub"
chmod +x "$W/stub"
# the pod as JSON (JSON is YAML), written by python so every byte is exact
python3 - "$W/pod.yaml" "$PWNED" <<'PY'
import json, sys
out, pw = sys.argv[1], sys.argv[2]
evil = "x'; touch %s; echo '$(touch %s)`touch %s`\";b" % (pw, pw, pw)
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "inj", "uid": "22222222-0000-0000-0000-000000000001",
                    "annotations": {
                        "slurm-job.vk.io/flags": "--mail-user='a$(touch %s)`touch %s`;b\"c@x'" % (pw, pw),
                        "slurm-job.vk.io/singularity-options": "--env X='$(touch %s)'" % pw}},
       "spec": {"containers": [{
           "name": "main", "image": "docker://busybox",
           "command": ["sh", "-c", evil + "\nsecond line"],
           "args": ["a'b", 'c"d', "$(touch %s)" % pw, "`touch %s`" % pw, "x;touch %s" % pw, "l1\nl2"],
           "env": [{"name": "EVIL", "value": "'; $(touch %s) `touch %s` \"\n" % (pw, pw)}]}]}}
json.dump(pod, open(out, "w"))
json.dump({"evil": evil}, open(out + ".want", "w"))
PY
"$SLURMLINK" render --shim "$W/stub" --pods-root "$W/pods dir's" --runtime singularity "$W/pod.yaml" > "$W/job.sh" 2>"$W/err"
is "$?" 0 "hostile pod renders"
ok bash -n "$W/job.sh" "bash -n accepts the script"
is "$(grep -v '^#' "$W/job.sh" | grep -v '^$' | sed 's/ .*//')" "exec" "the only command is exec"
if grep -v '^#' "$W/job.sh" | grep -q touch; then _t_report 1 "no user value outside comments and directives"; else _t_report 0 "no user value outside comments and directives"; fi
line=$(grep '^#SBATCH --mail-user=' "$W/job.sh")
is "$line" "#SBATCH --mail-user='a\$(touch $PWNED)\`touch $PWNED\`;b\"c@x'" "the flag value is one single-quoted word"
STUB_OUT=$W/args bash "$W/job.sh"
is "$?" 0 "the script runs (stub shim)"
ok test ! -e "$PWNED" "nothing was executed"
is "$(cat "$W/args")" "--pod-dir
$W/pods dir's/default/inj-22222222-0000-0000-0000-000000000001
--spec
$W/pods dir's/default/inj-22222222-0000-0000-0000-000000000001/shim.json" "the shim gets exactly its four words"
"$SLURMLINK" render --shim "$W/stub" --pods-root "$W/p" --runtime singularity --no-script --spec "$W/pod.yaml" > "$W/shim.json" 2>/dev/null
python3 - "$W/shim.json" "$W/pod.yaml.want" "$PWNED" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["containers"][0]
evil, pw = json.load(open(sys.argv[2]))["evil"], sys.argv[3]
want_tail = ["sh", "-c", evil + "\nsecond line", "a'b", 'c"d', "$(touch %s)" % pw,
             "`touch %s`" % pw, "x;touch %s" % pw, "l1\nl2"]
ok1 = c["argv"][-len(want_tail):] == want_tail
ok2 = c["env"].get("SINGULARITYENV_EVIL") == "'; $(touch %s) `touch %s` \"\n" % (pw, pw)
ok3 = "--env" in c["argv"] and "X=$(touch %s)" % pw in c["argv"]
for good, what in ((ok1, "argv"), (ok2, "env value"), (ok3, "singularity options as argv words")):
    if not good:
        print("# mismatch in", what, json.dumps(c))
sys.exit(0 if ok1 and ok2 and ok3 else 1)
PY
is "$?" 0 "argv, env and runtime options reach shim.json byte for byte"
ok test ! -e "$PWNED" "still nothing was executed"
done_testing
