//! zonemode=zbd (placeholder while building).
