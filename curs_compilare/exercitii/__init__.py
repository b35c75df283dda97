"""Verificările exercițiilor: mecanismul comun (`baza`) și câte un modul pe capitol (`cap00`, ...).

Cine pe cine importă: o verificare folosește nucleul de măsurare (`curs_compilare/`), uneltele
capitolului ei (`curs_compilare.capitole`) și `baza`; nu importă `curs_compilare.instructor`, iar
nimic din nucleu sau din `capitole/` nu importă de aici. Testul `tests/test_arhitectura.py`
verifică aceste reguli."""

from .baza import GresealaCursant, Rezultat

__all__ = ["GresealaCursant", "Rezultat"]
