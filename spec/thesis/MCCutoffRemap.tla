--------------------------- MODULE MCCutoffRemap ---------------------------
(* The model checked in CI: domain 0..14, cut-offs 2..7 (MCCutoffRemap.cfg). *)
EXTENDS CutoffRemap
=============================================================================
