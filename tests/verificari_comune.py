"""Scheletul comun al testelor verificărilor (`curs_compilare.exercitii.capXX`): orice mesaj respectă
formatul cursului (numere, fără traceback, ș și ț cu virgulă), un răspuns greșit e respins cu o explicație
care numește greșeala, unul bun e acceptat."""

from curs_compilare.cifre import probleme_de_format


def format_bun(mesaj: str) -> None:
    """Mesajul unei verificări: numere scrise ca în curs, fără traceback, fără ș și ț cu sedilă."""
    assert not probleme_de_format(mesaj), (probleme_de_format(mesaj), mesaj)
    assert "Traceback" not in mesaj, mesaj
    for litera in "\u015f\u015e\u0163\u0162":
        assert litera not in mesaj, mesaj


def respins(rezultat, *cuvinte, lipsa=()) -> str:
    """Răspunsul e respins, mesajul conține `cuvinte`, nu conține `lipsa` și nu e eroarea verificării însăși."""
    assert not rezultat, rezultat.mesaj
    for cuvant in cuvinte:
        assert cuvant in rezultat.mesaj, (cuvant, rezultat.mesaj)
    for cuvant in lipsa:
        assert cuvant not in rezultat.mesaj, (cuvant, rezultat.mesaj)
    assert "Nu am putut verifica" not in rezultat.mesaj, rezultat.mesaj
    return rezultat.mesaj


def acceptat(rezultat) -> None:
    assert rezultat, rezultat.mesaj


def controleaza_formatul(monkeypatch, modul) -> None:
    """Fiecare rezultat întors de `modul.verificare` (deci de fiecare exercițiu al modulului) trece prin
    `format_bun`; de pus într-un fixture `autouse` al fișierului de teste."""
    originala = modul.verificare

    def verificare_cu_control(*argumente, **argumente_numite):
        rezultat = originala(*argumente, **argumente_numite)
        format_bun(rezultat.mesaj)
        return rezultat

    monkeypatch.setattr(modul, "verificare", verificare_cu_control)
