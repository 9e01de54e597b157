"""OctopiA (Shafique, arXiv:1604.06853): SCOT overlay, CIV, scotAFP, subscription subgrouping,
SNR and IDR routing, with the TID-based PADRES baseline on the same brokers (docs/octopia.md)."""
