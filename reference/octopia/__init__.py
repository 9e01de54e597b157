"""OctopiA (seed 002, Shafique): SCOT overlay, CIV, scotAFP, subscription subgrouping, SNR and
IDR routing, with the TID-based PADRES baseline on the same brokers (docs/octopia.md)."""
