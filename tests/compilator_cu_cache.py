"""Compilatorul C++ al testelor, cu un cache pe durata unei rulări de teste.

Pe procesor, Inductor scrie fiecare kernel în C++ și cheamă compilatorul sistemului (`$CXX`,
implicit `g++`) ca să facă din el o bibliotecă `.so`: cam o secundă pentru fiecare kernel. Multe
teste și capitole compilează aceleași kernel-uri, fiecare în cache-ul lui gol (așa se măsoară o
compilare la rece), iar în fiecare proces nou Inductor compilează din nou și câteva programe mici
cu care încearcă setul de instrucțiuni al procesorului. Într-o rulare a testelor pe două nuclee,
aproape jumătate din timpul compilatorului C++ mergea pe surse identice cu unele compilate deja.

`conftest.py` pune scriptul acesta în locul compilatorului (`CXX`) pentru toată rularea: o
compilare cu o singură sursă C++ și o ieșire (`-o`) primește cheia ei (compilatorul adevărat,
argumentele fără calea ieșirii, conținutul sursei și al antetelor date ca argumente, cum e
antetul precompilat al lui Inductor). Dacă cheia a mai fost compilată în aceeași rulare,
ieșirea se copiază din cache; altfel rulează compilatorul adevărat și ieșirea intră în cache.
Orice altă chemare (`--version`, legarea din mai multe fișiere) trece neschimbată.

Ce se schimbă în teste: o compilare la rece a unei surse compilate deja în rulare sare peste
compilatorul C++, deci timpii la rece ai profilului rapid (care oricum nu spun nimic) scad.
Bibliotecile sunt aceleași octet cu octet. Cursantul nu trece niciodată pe aici: doar testele.

Utilizare (o face `conftest.py`): `CURS_CXX_ADEVARAT=g++ CURS_CXX_CACHE=dosar python
compilator_cu_cache.py ARGUMENTE...`
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

SURSE = (".cpp", ".cc", ".cxx", ".c")
ANTETE = (".h", ".hpp", ".hh")


def _cheie(compilator: str, argumente: list[str]) -> tuple[str, str] | None:
    """(cheia, calea ieșirii) pentru o compilare care se poate păstra, altfel None."""
    if "-o" not in argumente or argumente.count("-o") != 1:
        return None
    pozitie = argumente.index("-o")
    if pozitie + 1 >= len(argumente):
        return None
    iesire = argumente[pozitie + 1]
    surse = [a for a in argumente if a.endswith(SURSE) and not a.startswith("-")]
    fisiere = [a for i, a in enumerate(argumente) if i != pozitie + 1 and not a.startswith("-") and os.path.isfile(a)]
    # O singură sursă; alături, doar antete (antetul precompilat al lui Inductor vine cu `-include`),
    # al căror conținut intră în cheie. Legările din mai multe bucăți (obiecte, biblioteci date prin
    # cale) trec direct la compilator.
    if len(surse) != 1 or any(not a.endswith(SURSE + ANTETE) for a in fisiere):
        return None
    h = hashlib.sha256()
    h.update(compilator.encode())
    for i, a in enumerate(argumente):
        if i == pozitie + 1:
            h.update(b"\0IESIRE" + os.path.splitext(a)[1].encode())
        elif a in fisiere:
            with open(a, "rb") as f:
                h.update(b"\0FISIER" + os.path.splitext(a)[1].encode() + hashlib.sha256(f.read()).digest())
        else:
            h.update(b"\0" + a.encode())
    return h.hexdigest(), iesire


def main(argumente: list[str]) -> int:
    compilator = os.environ.get("CURS_CXX_ADEVARAT") or "g++"
    dosar = os.environ.get("CURS_CXX_CACHE")
    cheie = _cheie(compilator, argumente) if dosar else None
    if cheie is None:
        return subprocess.call([compilator, *argumente])
    cheie, iesire = cheie
    pastrata = os.path.join(dosar, cheie)
    if os.path.isfile(pastrata):
        shutil.copyfile(pastrata, iesire)
        shutil.copymode(pastrata, iesire)
        return 0
    cod = subprocess.call([compilator, *argumente])
    if cod == 0 and os.path.isfile(iesire):
        # Scrisă întâi alături, apoi mutată dintr-o bucată: alt proces de teste nu citește niciodată
        # o copie pe jumătate.
        os.makedirs(dosar, exist_ok=True)
        descriptor, temporar = tempfile.mkstemp(dir=dosar)
        os.close(descriptor)
        shutil.copyfile(iesire, temporar)
        shutil.copymode(iesire, temporar)
        os.replace(temporar, pastrata)
    return cod


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
