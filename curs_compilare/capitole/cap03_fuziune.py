"""Fuziunea kernel-urilor: lanțurile de operații din capitolul 03, octeții pe care îi mută
și măsurarea lor pe mai multe dimensiuni.

În bucătăria cursului: eager face câte un drum la cămară (memoria GPU-ului) pentru fiecare
operație — citește tensorul, scrie rezultatul intermediar înapoi. Un kernel fuzionat face un
singur drum: citește intrarea o dată, gătește totul în registre, scrie rezultatul o dată.

La final stau uneltele care țin contabilitatea capitolului departe de celulele lui: tabelele și
graficele, notele care diferă între GPU și procesor (`nota_peste_plafon`, `nota_ceas_perete`,
`interpretare_gelu_sin_cos`...) și cifrele pentru raportul de referință (`inregistreaza_lantul`,
`inregistreaza_softmax`...).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import torch

from .. import cifre
from ..cifre import cu_unitate, format_numar, format_octeti, format_procent
from ..concluzii import concluzie_accelerare
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
    "ETICHETE_LANT",
    "nota_peste_plafon",
    "tabel_latime_banda",
    "grafic_lant_pe_dimensiuni",
    "nota_ceas_perete",
    "grafic_sinusuri",
    "interpretare_gelu_sin_cos",
    "concluzie_softmax",
    "grafic_model_si_masurat",
    "nota_abateri_de_la_model",
    "inregistreaza_kernelurile",
    "inregistreaza_lantul",
    "inregistreaza_formele",
    "inregistreaza_sinusurile",
    "inregistreaza_gelu_sin_cos",
    "inregistreaza_softmax",
    "inregistreaza_triton",
    "inregistreaza_exercitiul_3",
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


# ---------------------------------------------------------------------------------------------
# Ce tipărește, ce desenează și ce înregistrează capitolul: tabelele, graficele, notele care
# diferă între GPU și procesor și cifrele pentru raportul de referință
# ---------------------------------------------------------------------------------------------

#: Etichetele celor două curbe ale lanțului din secțiunea 3.
ETICHETE_LANT = {"eager": "eager (4 kernel-uri)", "compilat": "compilat (1 kernel)"}


def nota_peste_plafon(latime_gbps: float, octeti_tensor: int, plafon, are_gpu: bool) -> str:
    """O propoziție, doar când o lățime de bandă trece de plafon: de ce (altfel, textul gol).

    `plafon` e plafonul de copiere măsurat (`masurare.masoara_plafon_copiere`: `gbps` și
    `octeti_copiati`). Sub 5% peste plafon e zgomot și nu se spune nimic. Un tensor cel puțin cât
    cel al plafonului nu poate sta în cache: diferența e zgomotul măsurătorii. Unul mai mic
    încape, măcar în parte, într-un cache mai rapid decât memoria: L2 pe GPU, cache-urile
    procesorului pe CPU."""
    if latime_gbps <= 1.05 * plafon.gbps:
        return ""
    peste = f"Peste plafon ({format_procent(latime_gbps / plafon.gbps)}): "
    if octeti_tensor >= plafon.octeti_copiati:  # aceeași mărime ca la plafon: nu e cache-ul
        return peste + "pe un tensor cât cel al plafonului, diferența vine din zgomotul măsurătorii; repetă măsurarea."
    unde = "cache-ul L2 al GPU-ului, mai rapid" if are_gpu else "cache-urile procesorului, mai rapide"
    return (peste + f"tensorul de {format_octeti(octeti_tensor)} încape, măcar în parte, în {unde} decât memoria; "
            f"plafonul s-a măsurat pe un tensor mai mare, de {format_octeti(plafon.octeti_copiati)}.")


def tabel_latime_banda(dimensiuni: Sequence[int], latime_banda: Mapping[str, Sequence[float]], plafon_gbps: float) -> str:
    """Tabelul secțiunii 3: pentru fiecare mărime a tensorului (`float32`), lățimea de bandă utilă
    eager și compilată (GB/s), accelerarea și procentul din plafonul de copiere."""
    randuri = [f"{'tensor':>10} {'eager':>12} {'compilat':>12} {'accelerare':>11} {'din plafon':>11}"]
    for i, n in enumerate(dimensiuni):
        e, c = latime_banda["eager"][i], latime_banda["compilat"][i]
        randuri.append(f"{format_octeti(n * 4):>10} {cu_unitate(e, 'GB/s'):>12} {cu_unitate(c, 'GB/s'):>12} "
                       f"{cu_unitate(c / e, '×'):>11} {format_procent(c / plafon_gbps):>11}")
    return "\n".join(randuri)


def grafic_lant_pe_dimensiuni(dimensiuni: Sequence[int], debite: Mapping[str, Sequence[tuple]], plafon_gbps: float):
    """Graficul secțiunii 3: lățimea de bandă utilă a lanțului, eager și compilat, pe fiecare
    mărime a tensorului, cu banda împrăștierii măsurate și linia plafonului de copiere.
    `debite` e {"eager": [...], "compilat": [...]}, cu triplete (mediana, jos, sus) în GB/s
    (`masurare.debit`). Întoarce axa; o afișezi cu `grafice.arata()`."""
    from ..grafice import grafic_dimensiuni

    return grafic_dimensiuni(
        [n * 4 for n in dimensiuni],
        {ETICHETE_LANT[nume]: [d[0] for d in debite[nume]] for nume in ETICHETE_LANT},
        marime="lățime de bandă utilă (GB/s)",
        plafon=plafon_gbps,
        titlu="(x * 2 + 1).relu() * 3: lățimea de bandă utilă",
        intervale={ETICHETE_LANT[nume]: ([d[1] for d in debite[nume]], [d[2] for d in debite[nume]]) for nume in ETICHETE_LANT},
    )


def nota_ceas_perete(dimensiuni: Sequence[int], masuratori: Sequence[Masuratoare], are_gpu: bool) -> str:
    """Pe un GPU: mărimile tensorului măsurate cu ceasul de perete (apeluri limitate de procesor
    sau echilibrate, deci cifre care depind și de procesor). Pe CPU, sau dacă nu e niciuna,
    textul gol."""
    ceasuri_perete = [format_octeti(n * 4) for n, m in zip(dimensiuni, masuratori) if m.ceas == "perete"]
    if not (are_gpu and ceasuri_perete):
        return ""
    return ("Măsurate cu ceasul de perete (acolo GPU-ul așteaptă procesorul o parte din timp: apelurile sunt "
            "limitate de procesor sau echilibrate, iar cifrele lor depind și de procesorul mașinii): "
            + ", ".join(ceasuri_perete))


def grafic_sinusuri(numere_sinusuri: Sequence[int], gbps_sinusuri: Sequence[float], plafon_gbps: float):
    """Graficul modelului *roofline* din secțiunea 4: lățimea de bandă utilă a lanțului de `k`
    sinusuri compilat, față de `k`, pe axe logaritmice, cu plafonul de copiere. Întoarce axa."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(numere_sinusuri, gbps_sinusuri, marker="o", label="compilat (1 kernel, 2 drumuri la cămară)")
    ax.axhline(plafon_gbps, linestyle="--", color="black", linewidth=1, label="plafonul de copiere măsurat")
    ax.set_xscale("log", base=2)
    ax.set_xticks(numere_sinusuri, [format_numar(k) for k in numere_sinusuri])
    ax.set_yscale("log")
    ax.set_xlabel("sinusuri în lanț (calcul pe octet)")
    ax.set_ylabel("lățime de bandă utilă (GB/s)")
    ax.set_title("Același număr de octeți, tot mai mult calcul")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return ax


def interpretare_gelu_sin_cos(accelerare, gbps_compilat: float, plafon_gbps: float, are_gpu: bool, profil: str) -> str:
    """Ce înseamnă măsurătoarea lui `cos(sin(gelu(x)))`: pe un GPU, în profilul complet, lanțul
    e limitat de calcul dacă accelerarea (un `masurare.Raport`) rămâne sub raportul drumurilor
    la cămară (3×) și kernel-ul compilat sub 80% din plafon; altfel, de memorie. Pe procesor sau
    în profilul rapid, regula nu se aplică, iar textul spune de ce."""
    if are_gpu and profil == "complet":
        if accelerare.mediana < 0.9 * 3 and gbps_compilat < 0.8 * plafon_gbps:
            return ("Interpretarea: accelerarea e sub raportul drumurilor la cămară (3×), iar kernel-ul compilat rămâne sub plafon: "
                    "pe GPU-ul tău, lanțul e limitat de calcul.")
        return ("Interpretarea: accelerarea e aproape de raportul drumurilor la cămară (3×) sau kernel-ul compilat e aproape de plafon: "
                "pe GPU-ul tău, lanțul e încă limitat de memorie.")
    return ("Regula din textul de mai jos (limitat de memorie sau de calcul) se aplică unui GPU cu tensori mari; "
            + ("în profilul rapid, tensorii sunt prea mici pentru ea." if profil == "rapid"
               else "pe procesor, memoria, cache-urile și costul fix al unui apel schimbă socoteala."))


def concluzie_softmax(raport, are_gpu: bool) -> str:
    """Propoziția despre softmax-ul naiv compilat față de `torch.softmax` (`raport` = timpul
    bibliotecii / timpul compilatului), cu cauza potrivită mașinii, dacă e mai lent: pe GPU,
    kernel-ul bine reglat al bibliotecii; pe procesor, kernel-ul C++ vectorizat și lipsa
    softmax-ului online în codul C++ al lui Inductor."""
    cauza = ("biblioteca are un kernel bine reglat pentru forma aceasta" if are_gpu else
             "pe procesor, torch.softmax e un kernel C++ vectorizat, scris de mână, iar Inductor nu folosește "
             "aici softmax-ul online (îl are doar pentru kernel-urile Triton): codul lui generat nu face mai "
             "puține drumuri decât biblioteca")
    return concluzie_accelerare(raport, "Softmax-ul naiv compilat", "torch.softmax", feminin=False, cauza=cauza)


def grafic_model_si_masurat(masurate: Mapping[str, object], asteptate: Mapping[str, float]):
    """Graficul exercițiului 3: pentru fiecare funcție, accelerarea prezisă de modelul drumurilor
    la cămară (`asteptate`) lângă cea măsurată (`masurate`, rapoarte `masurare.Raport`, cu
    rundele de la minim la maxim ca bare de eroare). Întoarce axa."""
    import matplotlib.pyplot as plt

    litere = list(masurate)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    pozitii = range(len(litere))
    ax.bar([p - 0.2 for p in pozitii], [asteptate[l] for l in litere], width=0.4, label="modelul drumurilor la cămară")
    ax.bar([p + 0.2 for p in pozitii], [masurate[l].mediana for l in litere], width=0.4, label="măsurat pe mașina ta (runde: min–max)",
           yerr=[[masurate[l].mediana - masurate[l].minim for l in litere], [masurate[l].maxim - masurate[l].mediana for l in litere]],
           capsize=3)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks(list(pozitii), litere)
    ax.set_ylabel("accelerare (×)")
    ax.set_title("Fuziunea: model și măsurătoare")
    ax.legend()
    return ax


def nota_abateri_de_la_model(masurate: Mapping[str, object], asteptate: Mapping[str, float], profil: str,
                             are_gpu: bool, octeti_tensor: int) -> str:
    """Sub graficul exercițiului 3, doar dacă măsurătoarea se abate de la model cu mai mult de o
    treime (în oricare sens) la vreo funcție: care funcții și de ce, pe mașina aceasta (profilul
    rapid, procesorul sau GPU-ul). Altfel, textul gol."""
    litere = list(masurate)
    departe = [l for l in litere
               if max(masurate[l].mediana / asteptate[l], asteptate[l] / masurate[l].mediana) > 4 / 3]
    if not departe:
        return ""
    functii = " și ".join([", ".join(departe[:-1]), departe[-1]] if len(departe) > 1 else departe)
    if profil == "rapid":
        motiv = ("în profilul rapid, tensorii sunt minusculi, iar costul fix al unui apel (gărzile, învelișul codului compilat) "
                 "cântărește mai mult decât drumurile la cămară")
    elif not are_gpu:
        motiv = (f"pe procesor, tensorii de {format_octeti(octeti_tensor)} încap în parte în cache-uri, operațiile eager "
                 "sunt deja vectorizate și împărțite pe nuclee, iar costul fix al unui apel compilat contează")
    else:
        motiv = ("pe GPU-ul tău, la mărimea aceasta, contează și altceva decât octeții mutați: costul fix al unui apel, "
                 "calculul sau cache-ul L2")
    return (f"Pe mașina ta, măsurătoarea se abate de la model cu mai mult de o treime la {functii}. Modelul drumurilor la cămară "
            f"descrie un GPU cu tensori mari; {motiv}.")


# Cifrele capitolului pentru raportul de referință (`cifre.inregistreaza`), câte o funcție pe
# experiment, cu aceleași chei, unități și descrieri ca înainte.


def inregistreaza_kernelurile(kerneluri_eager, kerneluri_compilat) -> None:
    """Câte kernel-uri are lanțul, eager și compilat (`masurare.numara_kerneluri`)."""
    cifre.inregistreaza("03.kerneluri_eager", kerneluri_eager.numar, "kernel-uri", "(x*2+1).relu()*3, eager")
    cifre.inregistreaza("03.kerneluri_compilat", kerneluri_compilat.numar, "kernel-uri", "(x*2+1).relu()*3, compilat")


def inregistreaza_lantul(plafon_gbps: float, lant_gbps: float, procent_plafon: float, accelerare, octeti_tensor: int) -> None:
    """Plafonul de copiere și lanțul compilat pe cel mai mare tensor (`octeti_tensor`): lățimea de
    bandă utilă, procentul din plafon (`procent_plafon` e o fracție: 0,9 = 90%) și accelerarea
    față de eager (un `masurare.Raport`)."""
    cifre.inregistreaza("03.plafon_copiere_gbps", plafon_gbps, "GB/s", "plafonul de copiere (citire + scriere)")
    cifre.inregistreaza("03.lant_compilat_gbps", lant_gbps, "GB/s", f"lanțul compilat pe {format_octeti(octeti_tensor)}")
    cifre.inregistreaza("03.lant_compilat_din_plafon", 100 * procent_plafon, "%", "lanțul compilat, ca procent din plafonul de copiere")
    cifre.inregistreaza("03.lant_accelerare", accelerare, "×", f"lanțul compilat față de eager, pe {format_octeti(octeti_tensor)}")


def inregistreaza_formele(gbps_fix: float, gbps_generic: float, octeti_tensor: int) -> None:
    """Lanțul compilat pentru formă fixă (`dynamic=False`) și generic (`dynamic=True`), în GB/s utili."""
    cifre.inregistreaza("03.lant_static_gbps", gbps_fix, "GB/s", f"lanțul compilat cu dynamic=False, {format_octeti(octeti_tensor)}")
    cifre.inregistreaza("03.lant_dinamic_gbps", gbps_generic, "GB/s", f"lanțul compilat cu dynamic=True, {format_octeti(octeti_tensor)}")


def inregistreaza_sinusurile(numere_sinusuri: Sequence[int], gbps_sinusuri: Sequence[float]) -> None:
    """Lățimea de bandă utilă a lanțului cu cele mai puține și cu cele mai multe sinusuri."""
    cifre.inregistreaza("03.sinusuri_1_gbps", gbps_sinusuri[0], "GB/s", "sin(x) compilat, lățime de bandă utilă")
    cifre.inregistreaza("03.sinusuri_max_gbps", gbps_sinusuri[-1], "GB/s", f"{numere_sinusuri[-1]} sinusuri compilate, lățime de bandă utilă")


def inregistreaza_gelu_sin_cos(accelerare, gbps_compilat: float, plafon_gbps: float) -> None:
    """`cos(sin(gelu(x)))`: accelerarea compilatului față de eager și procentul lui din plafon."""
    cifre.inregistreaza("03.gelu_sin_cos_accelerare", accelerare, "×", "cos(sin(gelu(x))) compilat față de eager")
    cifre.inregistreaza("03.gelu_sin_cos_din_plafon", 100 * gbps_compilat / plafon_gbps, "%", "cos(sin(gelu(x))) compilat, procent din plafon")


def inregistreaza_softmax(gbps_biblioteca: float, gbps_compilat: float, forma_text: str) -> None:
    """Softmax-ul bibliotecii (`torch.softmax`) și cel naiv compilat, în GB/s utili, pe forma dată."""
    cifre.inregistreaza("03.softmax_biblioteca_gbps", gbps_biblioteca, "GB/s", f"torch.softmax pe {forma_text}")
    cifre.inregistreaza("03.softmax_compilat_gbps", gbps_compilat, "GB/s", f"softmax naiv compilat pe {forma_text}")


def inregistreaza_triton(gbps_triton: float, gbps_inductor: float, octeti_tensor: int) -> None:
    """Kernel-ul Triton de mână față de cel generat de Inductor, pe tensorul mare (doar pe GPU:
    prin interpretor, timpul nu spune nimic)."""
    cifre.inregistreaza("03.triton_de_mana_gbps", gbps_triton, "GB/s", f"lanțul în Triton de mână, {format_octeti(octeti_tensor)}")
    cifre.inregistreaza("03.triton_inductor_gbps", gbps_inductor, "GB/s", f"lanțul generat de Inductor, {format_octeti(octeti_tensor)}")
    cifre.inregistreaza("03.triton_fata_de_inductor", 100 * gbps_triton / gbps_inductor, "%", "Triton de mână, procent din viteza lui Inductor")


def inregistreaza_exercitiul_3(masurate: Mapping[str, object]) -> None:
    """Accelerarea măsurată a fiecărei funcții din exercițiul 3 (doar pe GPU: modelul drumurilor
    la cămară descrie un GPU)."""
    for litera, raport in masurate.items():
        cifre.inregistreaza(f"03.exercitiul3_{litera}", raport, "×", f"exercițiul 3, funcția {litera}: compilat față de eager")
