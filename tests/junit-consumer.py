"""Our JUnit read back by a JUnit consumer that is not ours: junitparser (Debian's
python3-junitparser), for every fixture. What it parses (its suites, its testcases and their
failure and error results, and the counts the documents declare) is held against counts made
independently from the same run's JSON report, grouped the way the JUnit report is documented
to group (README: a testsuite per file with findings, a testcase per file, object and rule,
errors and warnings fail their testcase, input errors are errors), so the check does not only
compare our output with our own expectations.

Usage: junit-consumer.py SCHEDLINT FIXTURES_DIR
Prints FAIL lines, then "junit-consumer: N fixtures read" ; exit 1 on any failure, 77 when
junitparser cannot be imported (the caller reports a skip).
"""
import json
import os
import subprocess
import sys

try:
    from junitparser import Error, Failure, JUnitXml
except ImportError:
    sys.exit(77)


def fixture_args(d):
    # As tests/run-fixtures.sh builds them: `args` split on white space, or the defaults.
    p = os.path.join(d, "args")
    if os.path.exists(p):
        with open(p) as f:
            return f.read().split()
    args = []
    for name, opt in (("nodes.yaml", "--nodes"), ("pods.yaml", "--pods")):
        if os.path.exists(os.path.join(d, name)):
            args += [opt, name]
    return args + [m for m in ("manifest.yaml", "manifest.json") if os.path.exists(os.path.join(d, m))]


def run(binary, d, fmt, args):
    r = subprocess.run([binary, "--color", "never", "--format", fmt] + args, cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout


def expected(report):
    """(testsuites, testcases, failures, errors) from the JSON report."""
    items = []  # (file, object, rule, fails)
    for f in report["findings"]:
        if f.get("suppressed"):
            continue
        items.append((f.get("file", "-"), f.get("object", ""), f["rule"], f["level"] in ("error", "warning")))
    run_notices = 0
    for f in report["errors"] + report["notices"]:
        if "file" not in f and "id" in f:  # a notice of the run, not of a file: no testcase
            run_notices += 1
            continue
        items.append((f.get("file", "-"), f.get("object", ""), "", f["level"] in ("error", "warning")))
    if not items:
        return 1, 1, 0, 0
    files = {i[0] for i in items}
    cases = {}
    for file, obj, rule, fails in items:
        cases[(file, obj, rule)] = cases.get((file, obj, rule), False) or fails
    failures = sum(1 for (_, _, rule), fails in cases.items() if fails and rule)
    errors = sum(1 for (_, _, rule), fails in cases.items() if fails and not rule)
    return len(files) + (1 if run_notices else 0), len(cases), failures, errors


def consumed(xml_bytes, path):
    """(testsuites, testcases, failures, errors) as junitparser reads them, and the problems."""
    with open(path, "wb") as f:
        f.write(xml_bytes)
    xml = JUnitXml.fromfile(path)
    problems = []
    suites = cases = failures = errors = 0
    for suite in xml:
        suites += 1
        s_cases = s_fail = s_err = 0
        for case in suite:
            s_cases += 1
            kinds = {type(r) for r in case.result}
            s_fail += Failure in kinds
            s_err += Error in kinds
        # What the suite declares is what it holds.
        if (suite.tests, suite.failures, suite.errors) != (s_cases, s_fail, s_err):
            problems.append("suite %s declares tests=%s failures=%s errors=%s, holds %d, %d, %d" %
                            (suite.name, suite.tests, suite.failures, suite.errors, s_cases, s_fail, s_err))
        cases += s_cases
        failures += s_fail
        errors += s_err
    if (xml.tests, xml.failures, xml.errors) != (cases, failures, errors):
        problems.append("testsuites declares tests=%s failures=%s errors=%s, holds %d, %d, %d" %
                        (xml.tests, xml.failures, xml.errors, cases, failures, errors))
    return (suites, cases, failures, errors), problems


def main():
    binary, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    scratch = os.environ.get("TMPDIR", "/tmp")
    path = os.path.join(scratch, "junit-consumer.%d.xml" % os.getpid())
    failed = read = 0
    dirs = sorted(dp for dp, _, names in os.walk(root) if "expected.exit" in names)
    for d in dirs:
        args = fixture_args(d)
        try:
            got, problems = consumed(run(binary, d, "junit", args), path)
            want = expected(json.loads(run(binary, d, "json", args)))
        except Exception as e:  # a document the consumer cannot read is a failure too
            got, want, problems = None, None, ["not read: %s" % e]
        read += 1
        if got != want:
            problems.append("junitparser reads suites, testcases, failures, errors %s; the JSON report "
                            "gives %s" % (got, want))
        for p in problems:
            print("FAIL %s: %s" % (os.path.relpath(d, root), p))
        failed += bool(problems)
    if os.path.exists(path):
        os.remove(path)
    print("junit-consumer: %d fixtures read, %d disagree" % (read, failed))
    sys.exit(1 if failed or not read else 0)


main()
