# Sourced by tests/gpu/run_check_emulate.sh and run_register_emulate.sh: cudyn-check's prediction
# for an image against what the emulated driver or runtime answered.
#
# agree CHECK FILE VERSION GPU NAME OBSERVED TABLE: CHECK is bin/cudyn-check; its kernels layer's
# cuda_error for `binary FILE --target-version VERSION --gpu GPU --json` (0: it runs) is the
# prediction. Appends "NAME VERSION predicted observed yes|NO" to TABLE (and prints it); returns 1
# when they differ.
agree() {
  local check=$1 file=$2 v=$3 gpu=$4 name=$5 observed=$6 table=$7 predicted verdict=yes
  predicted=$("$check" binary "$file" --target-version "$v" --gpu "$gpu" --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
layer = [l for l in d["files"][0]["layers"] if l["layer"] == "kernels"][0]
print(layer["cuda_error"] or 0)')
  [[ $predicted == "$observed" ]] || verdict=NO
  printf '%-22s %-8s %-10s %-10s %s\n' "$name" "$v" "$predicted" "${observed:-?}" "$verdict" |
    tee -a "$table"
  [[ $verdict == yes ]]
}
