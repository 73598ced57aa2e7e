#!/usr/bin/env bash
# Fuzzes one of oncrpc's decoders with Jazzer: the project's fuzz.sh for this module (see it for the commands).
exec "$(dirname "${BASH_SOURCE[0]}")/../fuzz.sh" --module oncrpc "$@"
