"""Fuziunea kernel-urilor: lanțurile de operații din capitolul 03, octeții pe care îi mută
și măsurarea lor pe mai multe dimensiuni.

În bucătăria cursului: eager face câte un drum la cămară (memoria GPU-ului) pentru fiecare
operație — citește tensorul, scrie rezultatul intermediar înapoi. Un kernel fuzionat face un
singur drum: citește intrarea o dată, gătește totul în registre, scrie rezultatul o dată.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import torch

from ..inspectie import limita_recompilari
from ..masurare import Masuratoare, compara

__all__ = [
    "lant_punctual",
    "NUMAR_OPERATII_LANT",
    "PASI_LANT",
    "lant_de_operatii",
    "octeti_lant",
    "masoara_pe_dimensiuni",
    "cod_generat",
    "KernelGenerat",
    "kerneluri_generate",
    "linii_cheie",
    "argumente_multiplu_de_16",
    "TreceriPrinRand",
    "treceri_prin_rand",
]


def lant_punctual(x: torch.Tensor) -> torch.Tensor:
    """Lanțul capitolului: patru operații punctuale, `(x * 2 + 1).relu() * 3`.

    În modul eager înseamnă patru kernel-uri, fiecare citind și scriind un tensor întreg."""
    return (x * 2 + 1).relu() * 3


#: Câte operații (deci câte kernel-uri în modul eager) are `lant_punctual`.
NUMAR_OPERATII_LANT = 4

#: Pașii din care se construiesc lanțurile mai lungi, în ordine, reluați ciclic.
PASI_LANT = ("x = x * 2", "x = x + 1", "x = torch.relu(x)", "x = x * 3")
_FUNCTII_PASI = (lambda x: x * 2, lambda x: x + 1, torch.relu, lambda x: x * 3)
_NUMAR_LANTURI = itertools.count(1)


def lant_de_operatii(numar_operatii: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """Un lanț de `numar_operatii` operații punctuale ieftine (×2, +1, relu, ×3, apoi din nou).

    Fiecare apel întoarce o funcție cu propriul obiect de cod, cu un nume de cod unic
    (`lant_4_operatii_1`, `lant_4_operatii_2`, ...): două lanțuri construite separat nu împart
    nimic în Dynamo — nici compilările, nici limita de recompilări, nici formele văzute, din
    care Dynamo decide formele dinamice automate. Pașii, ca text, sunt în `.sursa`.
    """
    if not isinstance(numar_operatii, int) or numar_operatii < 1:
        raise ValueError("numar_operatii trebuie să fie un întreg ≥ 1")
    pasi = [_FUNCTII_PASI[i % len(_FUNCTII_PASI)] for i in range(numar_operatii)]

    def lant(x):
        for pas in pasi:
            x = pas(x)
        return x

    # De ce un obiect de cod nou. Un `def` din corpul unei funcții își ia codul din constantele
    # funcției exterioare, așa că toate funcțiile `lant` ar avea același `__code__`. Cache-ul
    # Dynamo stă chiar pe obiectul de cod, în spațiul lui suplimentar (torch/csrc/dynamo/
    # extra_state.h; îl citește `torch._dynamo.eval_frame._debug_get_cache_entry_list(code)`):
    # funcțiile cu același cod ar împărți compilările (gărzile decid care se potrivește) și
    # limita de recompilări. `replace` construiește un
    # obiect de cod nou, cu un cache gol. Numele lui e unic pentru că formele deja văzute, din
    # care Dynamo decide formele dinamice automate, sunt ținute după fișier, primul rând și
    # numele codului (torch/_dynamo/pgo.py, `CodeId`), nu după obiectul de cod.
    nume = f"lant_{numar_operatii}_operatii"
    lant.__code__ = lant.__code__.replace(co_name=f"{nume}_{next(_NUMAR_LANTURI)}")
    lant.__name__ = lant.__qualname__ = nume
    lant.sursa = "\n".join(PASI_LANT[i % len(PASI_LANT)] for i in range(numar_operatii))
    return lant


def octeti_lant(numar_elemente: int, numar_operatii: int, octeti_pe_element: int = 4) -> tuple[int, int]:
    """Octeții mutați de un lanț de operații punctuale cu o intrare, ca pereche (eager, fuzionat).

    Eager: fiecare operație citește un tensor întreg și scrie unul întreg → 2 × operații × N.
    Fuzionat: intrarea se citește o dată, rezultatul se scrie o dată → 2 × N.
    """
    tensor = numar_elemente * octeti_pe_element
    return 2 * numar_operatii * tensor, 2 * tensor


def masoara_pe_dimensiuni(
    variante: Mapping[str, Callable[[torch.Tensor], torch.Tensor]],
    numere_elemente: Sequence[int],
    dispozitiv: torch.device | str,
    dtype: torch.dtype = torch.float32,
    timp_minim_s: float = 0.2,
) -> dict[str, list[Masuratoare]]:
    """Măsoară fiecare variantă pe tensori de fiecare dimensiune și întoarce {nume: [măsurători]}.
    La fiecare dimensiune, variantele sunt măsurate cu același ceas, intercalat, în runde
    (`compara`).

    Variantele compilate ar trebui construite cu `dynamic=False`: altfel, a doua dimensiune
    declanșează formele dinamice automate, iar de acolo încolo se măsoară un kernel generic. Fiindcă
    o compilare statică pe dimensiune înseamnă mai multe recompilări decât limita implicită
    (8), limita e ridicată cât ține măsurătoarea.
    """
    rezultate: dict[str, list[Masuratoare]] = {nume: [] for nume in variante}
    with limita_recompilari(max(8, 2 * len(numere_elemente) + 2)):
        for numar in numere_elemente:
            x = torch.randn(int(numar), device=dispozitiv, dtype=dtype)
            comparatie = compara(variante, x, timp_minim_s=timp_minim_s)
            for nume in variante:
                rezultate[nume].append(comparatie[nume])
            del x
    return rezultate


# ---------------------------------------------------------------------------------------------
# Codul generat de Inductor: prins, împărțit pe kernel-uri, citit
# ---------------------------------------------------------------------------------------------


def cod_generat(functie: Callable, *argumente, **optiuni_compile) -> str:
    """Compilează o copie proaspătă a lui `functie` cu `torch.compile(**optiuni_compile)`, o
    apelează o dată pe `argumente` și întoarce codul Python scris de Inductor (cu sursele
    kernel-urilor Triton sau C++ în el).

    Copia are un obiect de cod nou, cu nume unic (vezi `lant_de_operatii`), deci un cache Dynamo
    gol: se compilează sigur, chiar dacă `functie` a mai fost compilată. Codul e prins prin
    cârligul `GraphLowering.save_output_code`, ca în `torch._inductor.utils.run_and_get_code`;
    aceea însă apelează întâi `torch._dynamo.reset()` și ar arunca toate compilările de până
    atunci din notebook. Cache-ul FX e oprit cât ține apelul, ca Inductor să scrie codul din nou.
    """
    import types
    from unittest import mock

    import torch._inductor.config
    from torch._inductor.graph import GraphLowering

    cod = functie.__code__.replace(co_name=f"{functie.__code__.co_name}_{next(_NUMAR_LANTURI)}")
    copie = types.FunctionType(cod, functie.__globals__, functie.__name__, functie.__defaults__, functie.__closure__)
    coduri: list[str] = []
    with torch._inductor.config.patch(fx_graph_cache=False), mock.patch.object(
        GraphLowering, "save_output_code", coduri.append
    ):
        torch.compile(copie, **optiuni_compile)(*argumente)
    if not coduri:
        raise RuntimeError("Inductor n-a scris niciun cod: funcția n-a fost compilată (caută avertismente mai sus).")
    return "\n".join(coduri)


@dataclass(frozen=True)
class KernelGenerat:
    """Un kernel din codul generat: numele, limbajul („triton” sau „c++”) și sursa lui."""

    nume: str
    limbaj: str
    sursa: str


_TIPAR_KERNEL = re.compile(r"^(\w+) = async_compile\.(triton|cpp_pybinding)\((.*?)'''(.*?)'''", re.S | re.M)


def kerneluri_generate(cod: str) -> list[KernelGenerat]:
    """Kernel-urile din codul scris de Inductor (`cod_generat`), în ordinea în care apar: cele
    Triton (`async_compile.triton(...)`) și cele C++ (`async_compile.cpp_pybinding(...)`)."""
    return [
        KernelGenerat(p.group(1), "triton" if p.group(2) == "triton" else "c++", p.group(4).strip("\n"))
        for p in _TIPAR_KERNEL.finditer(cod)
    ]


def _fara_static_cast(linie: str) -> str:
    """`static_cast<int64_t>(16L)` → `16L`, și în expresii imbricate: conversiile de tip ale
    codului C++ generat, scoase ca să se poată citi."""
    marcaj = "static_cast<int64_t>("
    while (inceput := linie.find(marcaj)) >= 0:
        adancime, i = 1, inceput + len(marcaj)
        while i < len(linie) and adancime:
            adancime += {"(": 1, ")": -1}.get(linie[i], 0)
            i += 1
        interior = linie[inceput + len(marcaj):i - 1]
        linie = linie[:inceput] + interior + linie[i:]
    return linie


def linii_cheie(kernel: KernelGenerat) -> list[str]:
    """Rândurile unui kernel care spun cum tratează marginea tensorului: semnătura, numărul de
    elemente, măștile, citirile și scrierile (Triton); semnătura, buclele, condițiile, citirile
    și scrierile vectoriale (C++, fără conversiile `static_cast<int64_t>`)."""
    linii = kernel.sursa.splitlines()
    if kernel.limbaj == "triton":
        tipar = re.compile(r"^\s*def |numel = |mask = |tl\.load\(|tl\.store\(")
        return [l.strip() for l in linii if tipar.search(l)]
    alese, in_semnatura = [], False
    for linie in linii:
        if linie.lstrip().startswith('extern "C"'):
            in_semnatura = True
        if in_semnatura or re.search(r"\b(for|if)\(|loadu\(|\.store\(", linie):
            alese.append(_fara_static_cast(linie.strip()))
        if in_semnatura and ")" in linie:
            in_semnatura = False
    return alese


def argumente_multiplu_de_16(kernel: KernelGenerat) -> list[str] | None:
    """Argumentele unui kernel Triton despre care Inductor îi spune compilatorului Triton că
    sunt multipli de 16 (pointerii: adrese aliniate la 16 octeți; întregii: valori divizibile
    cu 16), citite din metadatele kernel-ului (`triton_meta`). None dacă metadatele nu au
    această informație într-o formă cunoscută (sau kernel-ul nu e Triton)."""
    if kernel.limbaj != "triton":
        return None
    semnatura = re.search(r"^\s*def \w+\(([^)]*)\)", kernel.sursa, re.M)
    if not semnatura:
        return None
    nume = [a.split(":")[0].strip() for a in semnatura.group(1).split(",") if a.strip()]
    # forma nouă: {(0,): [['tt.divisibility', 16]], ...}; formele vechi: divisible_by_16=(0, 1)
    # sau 'tt.divisibility': (0, 1)
    indici = re.findall(r"\((\d+),\): \[\['tt\.divisibility', 16\]\]", kernel.sursa)
    grupuri = re.findall(r"divisible_by_16=\(([\d, ]*)\)|'tt\.divisibility': \(([\d, ]*)\)", kernel.sursa)
    if not indici and not grupuri:
        return None
    for grup in grupuri:
        indici += re.findall(r"\d+", "".join(grup))
    return [nume[i] for i in sorted({int(i) for i in indici}) if i < len(nume)]


@dataclass(frozen=True)
class TreceriPrinRand:
    """Cum parcurge un kernel de reducere rândul: `reducere` e „persistentă” (Triton, rândul
    întreg în registre), „în buclă” (Triton, pe bucăți) sau „c++”; `treceri` e numărul de
    parcurgeri ale rândului (bucle pe rând; 1 la o reducere persistentă); `citiri` spune, pentru
    fiecare buclă C++, ce tablouri citește; `softmax_online` spune dacă maximul și suma se
    calculează împreună (`online_softmax_*` în cod)."""

    kernel: str
    reducere: str
    treceri: int
    citiri: tuple[tuple[str, ...], ...] = ()
    softmax_online: bool = False

    def __str__(self) -> str:
        from ..cifre import cu_substantiv, da_nu

        if self.reducere == "persistentă":
            cum = "reducere persistentă: rândul e adus o singură dată, în registre, și toate trecerile se fac acolo"
        elif self.reducere == "în buclă":
            cum = (f"reducere în buclă: {cu_substantiv(self.treceri, 'trecere', 'treceri')} prin rând "
                   f"({cu_substantiv(self.treceri, 'buclă', 'bucle')} „for r0_offset”)")
        else:
            cum = f"{cu_substantiv(self.treceri, 'buclă', 'bucle')} pe rând"
            if self.citiri:
                cum += "; citesc: " + "; ".join(f"{i}) {', '.join(c) or '-'}" for i, c in enumerate(self.citiri, 1))
        return f"{self.kernel}: {cum}; softmax online: {da_nu(self.softmax_online)}"


def treceri_prin_rand(kernel: KernelGenerat, lungime_rand: int) -> TreceriPrinRand:
    """De câte ori parcurge `kernel` un rând de `lungime_rand` elemente.

    Triton: `triton_per_...` e o reducere persistentă (o singură citire a rândului, în
    registre); `triton_red_...` parcurge rândul în bucle `for r0_offset in range(...)` (în
    versiunile mai vechi, `for roffset in ...`), câte una pe trecere. C++: buclele al căror
    capăt e lungimea rândului, fiecare cu tablourile pe care le citește vectorial (`loadu`)."""
    online = "online_softmax" in kernel.sursa
    if kernel.limbaj == "triton":
        if "def triton_per_" in kernel.sursa or kernel.nume.startswith("triton_per_"):
            return TreceriPrinRand(kernel.nume, "persistentă", 1, softmax_online=online)
        bucle = re.findall(r"^\s*for r\w*offset in (?:tl\.)?range\(", kernel.sursa, re.M)
        return TreceriPrinRand(kernel.nume, "în buclă", len(bucle), softmax_online=online)
    linii = kernel.sursa.splitlines()
    citiri = []
    for i, linie in enumerate(linii):
        if not re.search(rf"\bfor\(.*<\s*(?:static_cast<int64_t>\()?{int(lungime_rand)}L?\)?;", linie):
            continue
        corp, adancime, inceput = [], 0, False
        for urmatoarea in linii[i + 1:]:
            adancime += urmatoarea.count("{") - urmatoarea.count("}")
            inceput = inceput or "{" in urmatoarea
            corp.append(urmatoarea)
            if inceput and adancime <= 0:
                break
        citite = re.findall(r"loadu\((\w+)", "\n".join(corp))
        citiri.append(tuple(dict.fromkeys(citite)))
    return TreceriPrinRand(kernel.nume, "c++", len(citiri), tuple(citiri), online)
