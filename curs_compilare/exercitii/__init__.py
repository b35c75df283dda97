"""Verificările exercițiilor: mecanismul comun (`baza`) și câte un modul pe capitol (`cap00`, ...)."""

from .baza import GresealaCursant, Rezultat

__all__ = ["GresealaCursant", "Rezultat"]
