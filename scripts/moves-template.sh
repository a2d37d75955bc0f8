# Sourced by profile-moves.sh, ab-moves.sh and moves-server-latency.sh: the seeded gallery the move
# benchmarks serve copies of. `moves_template BIN ITEMS SECTIONS` seeds it once with BIN
# (`gallery-bench serve-moves --seed-only`) and prints its folder.
moves_template() {
  local template=${TMPDIR:-/tmp}/profile-moves-template-$2-$3
  if [[ ! -f $template/.seeded ]]; then
    rm -rf "$template"
    "$1" serve-moves --data "$template" --items "$2" --sections "$3" --seed-only >&2
    touch "$template/.seeded"
  fi
  echo "$template"
}
