"""Verificările exercițiilor din capitolul 05 — reglarea automată (*autotuning*) și
`torch.compile(mode="max-autotune")`.

- Exercițiul 1: o listă de `triton.Config` pentru `kernel_matmul`. Configurațiile se verifică
  întâi ca valori (plăci, warp-uri, etape, memoria partajată), apoi rulează pe matrice de forme
  alese la întâmplare, ale căror laturi nu sunt multipli de plăci; pe un GPU, versiunea reglată
  se și măsoară. Compilarea și rularea configurațiilor au o limită de timp.
- Exercițiul 2: după câți pași se amortizează `max-autotune`, pe modelul unic al costului din
  `curs_compilare.amortizare` (primul apel + (n − 1) · timpul pe apel), pe cazuri alese la
  întâmplare la fiecare rulare.
- Exercițiul 3: tipul de date și șabloanele GEMM pentru un GPU, pe GPU-urile din enunț, pe
  câteva pe care cursantul nu le vede și pe câteva generate la întâmplare.

Intrările se schimbă la fiecare rulare (`generator_aleator`; cu `CURS_SEMINTA=…` în mediu,
mereu aceleași). Codul cursantului se apelează numai prin `apeleaza` sau în `limita_timp`.
"""

from __future__ import annotations

import itertools
import re
import math
import numbers
from dataclasses import dataclass, replace

import numpy as np
import torch

from ..amortizare import FORMULA, apel_de_amortizare, cost_total
from ..masurare import prag_rentabilitate
from ..cifre import cu_prefix, cu_substantiv, cu_unitate, format_numar, format_octeti, format_timp
from ..mediu import SM_MINIM_GEMM_AUTOTUNE, detecteaza_mediul
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    cu_originalul,
    generator_aleator,
    limita_timp,
    traduce_exceptie,
    traduce_mesaj,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "DescriereGPU",
    "GPU_URI_DE_EXEMPLU",
    "memorie_partajata",
    "limita_memorie_partajata",
]


def _cu_majuscula(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: configurații pentru reglarea automată a produsului de matrice
# ---------------------------------------------------------------------------------------------

_CHEI_PLACA = ("BM", "BN", "BK")
_PLACA_MINIMA = 16  # tl.dot cere plăci de cel puțin 16 pe fiecare latură
_PLACA_MAXIMA = 256
_WARPS_MAXIM = 16
_OCTETI_PE_ELEMENT = 2  # float16
_LIMITA_PARTAJATA_IMPLICITA = 227 * 1024  # H100/H200 (și A100 are 163 KiB)
_LIMITA_PARTAJATA_T4 = 64 * 1024
_ACCELERARE_MINIMA = 1.5
_LATURA_MASURARE = 2048
#: Câte configurații primește reglarea, cel mult: la primul apel le compilează și le
#: cronometrează pe toate.
CONFIGURATII_MAXIME = 32
#: Cât are voie să dureze funcția care întoarce lista (dacă răspunsul e o funcție).
LIMITA_FUNCTIE_1_S = 5.0
#: Limitele compilării și rulării configurațiilor: o parte fixă plus una pe configurație.
LIMITA_CORECTITUDINE_S = 20.0
LIMITA_MASURARE_S = 30.0
LIMITA_PE_CONFIGURATIE_S = 8.0
#: Limita întregii verificări (pe GPU, compilarea a cel mult CONFIGURATII_MAXIME configurații).
LIMITA_VERIFICARE_1_CPU_S = 120.0
LIMITA_VERIFICARE_1_GPU_S = 600.0


def _importa_reglare():
    """Modulul `curs_compilare.capitole.cap05_reglare`, sau o explicație dacă triton lipsește."""
    try:
        import triton  # noqa: F401
    except ImportError:
        raise GresealaCursant(
            "Pachetul triton nu e instalat pe această mașină (nu există pentru macOS și Windows): "
            "exercițiul cere Linux sau Colab."
        ) from None
    from ..capitole import cap05_reglare as reglare

    if not reglare.ARE_TRITON:
        raise GresealaCursant("Pachetul triton nu s-a putut încărca pe această mașină: exercițiul cere Linux sau Colab.")
    return reglare


def _e_intreg(valoare) -> bool:
    return isinstance(valoare, numbers.Integral) and not isinstance(valoare, bool)


def _e_int_python(valoare) -> bool:
    return isinstance(valoare, int) and not isinstance(valoare, bool)


def _putere_a_lui_2(valoare: int) -> bool:
    return valoare > 0 and valoare & (valoare - 1) == 0


def _lista_configuratii(configuratii, Config) -> list:
    """Verifică forma răspunsului: o listă nevidă de `triton.Config`, nu prea lungă."""
    if configuratii is None:
        raise GresealaCursant("Ai dat None: scrie lista de configurații, [triton.Config(...), ...].")
    if isinstance(configuratii, Config):
        raise GresealaCursant(
            "Ai dat o singură configurație, nu o listă. Pune-o într-o listă, alături de altele: "
            "[triton.Config({...}, ...), triton.Config({...}, ...)] — reglarea automată alege dintre ele."
        )
    if not isinstance(configuratii, (list, tuple)):
        raise GresealaCursant(
            f"Trebuia o listă de triton.Config, dar am primit {type(configuratii).__name__}."
        )
    if not configuratii:
        raise GresealaCursant(
            "Lista e goală: reglarea automată are nevoie de configurații din care să aleagă. Adaugă "
            "câteva triton.Config({'BM': ..., 'BN': ..., 'BK': ...}, num_warps=..., num_stages=...)."
        )
    if len(configuratii) > CONFIGURATII_MAXIME:
        raise GresealaCursant(
            f"Ai dat {cu_substantiv(len(configuratii), 'configurație', 'configurații')}. Reglarea automată le "
            "compilează și le cronometrează pe toate la primul apel, așa că o listă lungă costă mult la "
            f"fiecare formă nouă. Alege cel mult {CONFIGURATII_MAXIME} (de obicei ajung 4–10 bine alese)."
        )
    for numar, configuratie in enumerate(configuratii, start=1):
        if not isinstance(configuratie, Config):
            sfat = (
                " Ai scris doar dicționarul: învelește-l, triton.Config({'BM': 64, 'BN': 64, 'BK': 32}, "
                "num_warps=4, num_stages=3)."
                if isinstance(configuratie, dict)
                else " Fiecare element se scrie triton.Config({'BM': ..., 'BN': ..., 'BK': ...}, num_warps=..., num_stages=...)."
            )
            raise GresealaCursant(
                f"Elementul {numar} al listei e {type(configuratie).__name__}, nu un triton.Config.{sfat}"
            )
    return list(configuratii)


def _nume_configuratie(numar: int, configuratie) -> str:
    parametri = [f"{nume}={valoare!r}" for nume, valoare in dict(configuratie.kwargs).items()]
    parametri += [f"num_warps={configuratie.num_warps!r}", f"num_stages={configuratie.num_stages!r}"]
    return f"configurația {numar} ({', '.join(parametri)})"


def _verifica_parametrii(numar: int, configuratie) -> None:
    """Cheile BM, BN, BK, puterile lui 2, numărul de warp-uri și de etape."""
    parametri = configuratie.kwargs
    if not isinstance(parametri, dict):
        raise GresealaCursant(
            f"La configurația {numar}, primul argument al lui triton.Config trebuie să fie un dicționar, "
            f"nu {type(parametri).__name__}."
        )
    nume = _nume_configuratie(numar, configuratie)
    lipsa = [cheie for cheie in _CHEI_PLACA if cheie not in parametri]
    in_plus = [cheie for cheie in parametri if cheie not in _CHEI_PLACA]
    if lipsa or in_plus:
        parti = []
        if lipsa:
            parti.append("lipsește " + ", ".join(lipsa) if len(lipsa) == 1 else "lipsesc " + ", ".join(lipsa))
        if in_plus:
            parti.append("are în plus " + ", ".join(map(str, in_plus)))
        raise GresealaCursant(
            f"La {nume}: {'; '.join(parti)}. Parametrii constexpr ai lui kernel_matmul se numesc exact "
            "BM, BN și BK (plăcile lui C sunt BM × BN, iar K se parcurge în pași de BK); cheile "
            "dicționarului trebuie să fie exact acestea trei."
        )
    for cheie in _CHEI_PLACA:
        valoare = parametri[cheie]
        if not _e_int_python(valoare):
            raise GresealaCursant(
                f"La {nume}, {cheie} trebuie să fie un număr întreg Python (int), nu {type(valoare).__name__}: "
                "Triton nu primește ca parametri constexpr nici text, nici numere NumPy."
            )
        if not _putere_a_lui_2(valoare):
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} nu e o putere a lui 2. tl.arange și plăcile lui Triton "
                "cer laturi de 16, 32, 64, 128 sau 256."
            )
        if valoare < _PLACA_MINIMA:
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} e prea mic: tl.dot (produsul plăcilor, pe nucleele "
                f"tensoriale) cere plăci de cel puțin {_PLACA_MINIMA} pe fiecare latură."
            )
        if valoare > _PLACA_MAXIMA:
            raise GresealaCursant(
                f"La {nume}, {cheie}={valoare} e prea mare: acumulatorul BM × BN stă în registre, iar "
                f"plăcile A și B în memoria partajată; peste {_PLACA_MAXIMA} nu mai încap. Folosește "
                f"laturi între {_PLACA_MINIMA} și {_PLACA_MAXIMA}."
            )
    warps = configuratie.num_warps
    if not _e_int_python(warps) or not _putere_a_lui_2(warps) or warps > _WARPS_MAXIM:
        raise GresealaCursant(
            f"La {nume}, num_warps={warps!r} nu e valid: numărul de warp-uri (grupuri de 32 de fire de "
            f"execuție care lucrează împreună la o placă) e o putere a lui 2 între 1 și {_WARPS_MAXIM}."
        )
    etape = configuratie.num_stages
    if not _e_int_python(etape) or etape < 1:
        raise GresealaCursant(
            f"La {nume}, num_stages={etape!r} nu e valid: numărul de etape (câte plăci se aduc din "
            "memorie în avans) e un întreg de cel puțin 1, de obicei între 2 și 5."
        )
    if getattr(configuratie, "pre_hook", None) is not None or getattr(configuratie, "ir_override", None) is not None:
        raise GresealaCursant(
            f"La {nume} ai pus și pre_hook sau ir_override. Exercițiul cere doar plăcile, warp-urile și "
            "etapele: scoate-le (kernel_matmul nu are nevoie de cod rulat înaintea fiecărei lansări)."
        )


def memorie_partajata(configuratie) -> int:
    """Estimarea memoriei partajate a unei configurații `triton.Config`, în octeți (float16):
    num_stages plăci BM × BK din A și BK × BN din B, aduse în avans. Verificarea exercițiului 1
    respinge configurațiile care trec de `limita_memorie_partajata()`."""
    p = configuratie.kwargs
    return configuratie.num_stages * (p["BM"] * p["BK"] + p["BK"] * p["BN"]) * _OCTETI_PE_ELEMENT


def limita_memorie_partajata() -> tuple[int, str]:
    """Memoria partajată maximă a unui bloc (octeți) și de unde vine limita, în cuvinte. Pe un
    GPU, limita vine din `mediu.detecteaza_mediul` (un T4 simulat are limita unui T4)."""
    mediu = detecteaza_mediul()
    if mediu.are_gpu:
        limita = mediu.memorie_partajata_bloc
        if not limita:
            try:
                from triton.runtime import driver

                limita = driver.active.utils.get_device_properties(0)["max_shared_mem"]
            except Exception:
                limita = None
        if limita:
            return int(limita), f"GPU-ul tău ({mediu.nume_gpu}) are cel mult {format_octeti(limita)} pe bloc"
    return (
        _LIMITA_PARTAJATA_IMPLICITA,
        f"un GPU mare (H100, H200) are cel mult {format_octeti(_LIMITA_PARTAJATA_IMPLICITA)} pe bloc, "
        f"iar un T4 doar {format_octeti(_LIMITA_PARTAJATA_T4)}",
    )


def _e_de_tipul(eroare: BaseException, nume_clasa: str) -> bool:
    return any(clasa.__name__ == nume_clasa for clasa in type(eroare).__mro__)


def _explica_eroare_triton(eroare: Exception, nume: str) -> str:
    """O eroare de compilare sau de lansare a lui Triton, explicată pe scurt."""
    randuri = [r.strip() for r in str(eroare).strip().splitlines() if r.strip()]
    ultimul = randuri[-1] if randuri else ""
    original = cu_originalul(ultimul)
    if _e_de_tipul(eroare, "OutOfResources"):
        resurse = re.search(r"Required: (\d+),?\s*Hardware limit: (\d+)", str(eroare))
        cifre = (f" (cere {format_octeti(int(resurse[1]))}, GPU-ul are {format_octeti(int(resurse[2]))})"
                 if resurse else "")
        if "shared" in str(eroare).lower():
            return (
                f"Triton n-a putut compila {nume}: nu încape în memoria partajată a GPU-ului{cifre}. "
                "Fiecare etapă (num_stages) ține în memoria partajată câte o placă BM × BK din A și una "
                f"BK × BN din B: micșorează BK sau num_stages, ori plăcile.{original}"
            )
        return (
            f"Triton n-a putut compila {nume}: depășește resursele GPU-ului{cifre}. Micșorează "
            f"plăcile sau schimbă numărul de warp-uri.{original}"
        )
    tradus = traduce_mesaj(ultimul) if ultimul else None
    if _e_de_tipul(eroare, "CompilationError") or _e_de_tipul(eroare, "CompileTimeAssertionFailure"):
        return (
            f"Triton n-a putut compila kernel-ul cu {nume}" + (f": {tradus}" if tradus else "")
            + f". Verifică valorile din configurație.{original}"
        )
    # Triton pune rândul cu sens la sfârșitul mesajului (după codul kernel-ului): de acolo se ia originalul.
    explicatie = traduce_mesaj(ultimul, type(eroare)) or traduce_exceptie(eroare).explicatie
    return f"Kernel-ul n-a rulat cu {nume} ({type(eroare).__name__}): {explicatie}.{original}"


def _lanseaza_configuratia(reglare, a, b, numar, configuratie):
    try:
        return reglare.matmul_cu_configuratie(
            a, b, **configuratie.kwargs, num_warps=configuratie.num_warps, num_stages=configuratie.num_stages
        )
    except GresealaCursant:
        raise
    except Exception as eroare:  # compilare sau execuție
        raise GresealaCursant(_explica_eroare_triton(eroare, _nume_configuratie(numar, configuratie))) from None


def _forme_corectitudine(generator, pe_gpu: bool) -> list[tuple[int, int, int]]:
    """Două forme (M, N, K) alese la întâmplare: una mijlocie, cu laturi care nu sunt multipli de
    16 (deci nici ai vreunei plăci), și una mai mică decât orice placă."""

    def latura(jos, sus):
        while True:
            valoare = generator.randint(jos, sus)
            if valoare % 16:
                return valoare

    if pe_gpu:
        mijlocie = (latura(130, 420), latura(130, 420), latura(70, 300))
    else:
        mijlocie = (latura(33, 90), latura(33, 90), latura(33, 80))
    mica = (generator.randint(1, 15), generator.randint(1, 15), generator.randint(1, 40))
    return [mijlocie, mica]


def _verifica_corectitudinea(reglare, configuratii, dispozitiv, generator) -> None:
    """Fiecare configurație, pe matrice de forme alese la întâmplare, cu laturi care nu sunt
    multipli de plăci."""
    seminte = torch.Generator().manual_seed(generator.randrange(2**31))
    if dispozitiv.type == "cuda":
        tip, toleranta = torch.float16, dict(rtol=1e-2, atol=1e-2)
    else:
        tip, toleranta = torch.float32, dict(rtol=1e-4, atol=1e-4)
    for M, N, K in _forme_corectitudine(generator, dispozitiv.type == "cuda"):
        a = torch.randn(M, K, generator=seminte).to(dispozitiv, tip)
        b = torch.randn(K, N, generator=seminte).to(dispozitiv, tip)
        asteptat = (a.float() @ b.float()).to(tip)
        for numar, configuratie in enumerate(configuratii, start=1):
            obtinut = _lanseaza_configuratia(reglare, a, b, numar, configuratie)
            compara_tensori(obtinut, asteptat, f"{_nume_configuratie(numar, configuratie)}, {M} × {K} @ {K} × {N}", **toleranta)


def _masoara_pe_gpu(reglare, configuratii) -> str:
    """Configurația de bază, versiunea reglată și torch.matmul, măsurate împreună cu `compara`
    (intercalat, în runde; pe GPU, do_bench) pe 2048³ în float16."""
    from ..concluzii import concluzie_accelerare
    from ..masurare import compara

    latura = _LATURA_MASURARE
    generator = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(latura, latura, device="cuda", dtype=torch.float16, generator=generator)
    b = torch.randn(latura, latura, device="cuda", dtype=torch.float16, generator=generator)
    operatii = reglare.flops_matmul(latura, latura, latura)
    baza = reglare.CONFIGURATIE_DE_BAZA

    def ruleaza_baza():
        return reglare.matmul_cu_configuratie(
            a, b, **baza.kwargs, num_warps=baza.num_warps, num_stages=baza.num_stages
        )

    reglat = reglare.matmul_reglat(configuratii)
    try:
        reglat(a, b)  # primul apel: aici se face reglarea, în afara cronometrării
        torch.cuda.synchronize()
    except Exception as eroare:
        nume = "una dintre configurații"
        if "shared memory" in str(eroare) and configuratii:
            # Triton nu spune care configurație a cerut prea mult: e cea cu cele mai mari plăci.
            numar, cea_mai_mare = max(enumerate(configuratii, 1), key=lambda p: memorie_partajata(p[1]))
            nume = _nume_configuratie(numar, cea_mai_mare)
        raise GresealaCursant(_explica_eroare_triton(eroare, f"{nume} (la 2048 × 2048)")) from None
    aleasa = reglat.configuratia_aleasa
    descriere_aleasa = reglare.descrie_configuratie(aleasa) if aleasa is not None else "configurația aleasă"
    comparatie = compara({"baza": ruleaza_baza, "reglat": lambda: reglat(a, b), "cublas": lambda: a @ b})
    m_baza, m_reglat, m_cublas = (comparatie[n] for n in ("baza", "reglat", "cublas"))
    raport = comparatie.accelerare("baza", "reglat")

    def debit(m):
        return cu_prefix(operatii / m.mediana_s, "FLOP/s")

    cifre = (
        f"Pe {latura} × {latura} × {latura}, float16: configurația de bază (16 × 16 × 16, un warp) "
        f"face {debit(m_baza)} ({cu_unitate(m_baza.mediana_ms, 'ms')}), versiunea ta reglată "
        f"{debit(m_reglat)} ({cu_unitate(m_reglat.mediana_ms, 'ms')}), cu {descriere_aleasa}. "
        + concluzie_accelerare(raport, "Versiunea ta reglată", "configurația de bază", ce_se_compara="variante")
        + f" Pentru comparație, torch.matmul (cuBLAS) face {debit(m_cublas)}."
    )
    if raport.mediana < _ACCELERARE_MINIMA:
        raise GresealaCursant(
            f"{cifre}\nVersiunea reglată trebuia să fie de cel puțin {format_numar(_ACCELERARE_MINIMA)} ori mai rapidă. Reglarea automată alege "
            "doar dintre configurațiile pe care i le dai: adaugă plăci mai mari (BM și BN de 64 sau "
            "128, BK de 32 sau 64), 4 sau 8 warp-uri și 3–4 etape (num_stages)."
        )
    return cifre


def _mesaj_timp_configuratii(ce: str, secunde: float) -> str:
    return (
        f"{_cu_majuscula(ce)} n-au terminat în {format_timp(secunde)}. Compilarea unei configurații poate "
        "dura mult când placa e mare, iar warp-urile sunt puține (de exemplu 256 × 256 cu un warp): "
        "acumulatorul nu mai încape în registre. Păstrează câteva configurații, cu cel puțin 4 warp-uri "
        "la plăcile de 128 și 8 la cele mai mari."
    )


def exercitiul_1(configuratii) -> Rezultat:
    """Verifică o listă de `triton.Config` pentru `kernel_matmul` (din `curs_compilare.capitole.cap05_reglare`):
    parametrii BM, BN, BK (puteri ale lui 2, cel puțin 16), num_warps, memoria partajată,
    rezultate corecte cu fiecare configurație, pe forme alese la întâmplare. Pe GPU, versiunea
    reglată trebuie să fie de cel puțin 1,5 ori mai rapidă decât `CONFIGURATIE_DE_BAZA`; pe CPU,
    unde interpretorul nu spune nimic despre viteză, cel puțin o configurație trebuie să aibă o
    placă mai mare decât cea de bază.

    `configuratii` e lista însăși sau o funcție fără argumente care o întoarce."""

    def corp():
        reglare = _importa_reglare()
        import triton

        raspuns = configuratii
        if callable(raspuns) and not isinstance(raspuns, (list, tuple, triton.Config)):
            # o funcție fără argumente care întoarce lista
            raspuns = apeleaza(raspuns, limita_s=LIMITA_FUNCTIE_1_S)
        lista = _lista_configuratii(raspuns, triton.Config)
        for numar, configuratie in enumerate(lista, start=1):
            _verifica_parametrii(numar, configuratie)
        limita, unde = limita_memorie_partajata()
        for numar, configuratie in enumerate(lista, start=1):
            necesar = memorie_partajata(configuratie)
            if necesar > limita:
                raise GresealaCursant(
                    f"{_cu_majuscula(_nume_configuratie(numar, configuratie))} cere cam {format_octeti(necesar)} de "
                    f"memorie partajată: num_stages × (BM·BK + BK·BN) × 2 octeți (float16). Nu încape: "
                    f"{unde}. Micșorează BK sau num_stages."
                )
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        secunde = LIMITA_CORECTITUDINE_S + LIMITA_PE_CONFIGURATIE_S * len(lista)
        ce = "compilarea și rularea configurațiilor tale pe matrice mici"
        with limita_timp(secunde, ce, mesaj=_mesaj_timp_configuratii(ce, secunde)):
            _verifica_corectitudinea(reglare, lista, dispozitiv, generator_aleator())
        baza = reglare.CONFIGURATIE_DE_BAZA.kwargs
        placa_baza = baza["BM"] * baza["BN"]
        if dispozitiv.type == "cuda":
            secunde = LIMITA_MASURARE_S + LIMITA_PE_CONFIGURATIE_S * len(lista)
            ce = f"reglarea și măsurarea configurațiilor tale la {_LATURA_MASURARE} × {_LATURA_MASURARE}"
            with limita_timp(secunde, ce, mesaj=_mesaj_timp_configuratii(ce, secunde)):
                cifre = _masoara_pe_gpu(reglare, lista)
            return (
                f"{cifre}\nPlăcile mari refolosesc fiecare element adus din memorie de mai multe ori: "
                "o placă BM × BN aduce (BM + BN) · BK elemente și face BM · BN · BK înmulțiri."
            )
        if not any(c.kwargs["BM"] * c.kwargs["BN"] > placa_baza for c in lista):
            raise GresealaCursant(
                f"Toate configurațiile tale au plăci de cel mult {baza['BM']} × {baza['BN']}, cât cea de bază: "
                "reglarea automată n-are din ce alege ceva mai rapid. Adaugă plăci mai mari (64 × 64, "
                "128 × 128): o placă BM × BN aduce din memorie (BM + BN) · BK elemente și face cu ele "
                "BM · BN · BK înmulțiri, deci cu cât e mai mare, cu atât fiecare drum la cămară e mai rentabil."
            )
        if len(lista) == 1:
            inceput = "Configurația ta e validă și dă rezultate corecte"
        else:
            inceput = f"Toate cele {cu_substantiv(len(lista), 'configurație', 'configurații')} sunt valide și dau rezultate corecte"
        return (
            f"{inceput}, inclusiv pe "
            "matrice ale căror laturi nu sunt multipli de plăci (rulate prin interpretorul Triton, pe CPU). "
            "Pe CPU, timpii interpretorului nu spun nimic despre un GPU; pe un GPU, verificarea "
            f"măsoară și viteza: versiunea reglată trebuie să fie de cel puțin {format_numar(_ACCELERARE_MINIMA)} "
            "ori mai rapidă decât configurația de bază."
        )

    limita = LIMITA_VERIFICARE_1_GPU_S if torch.cuda.is_available() else LIMITA_VERIFICARE_1_CPU_S
    return verificare("Exercițiul 1", corp, limita_s=limita)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: după câți pași se amortizează max-autotune
# ---------------------------------------------------------------------------------------------

#: Cât are voie să dureze un apel al funcției cursantului, și toată verificarea.
LIMITA_APEL_2_S = 3.0
LIMITA_VERIFICARE_2_S = 30.0

_NUME_2 = ("prima_default_s", "pas_default_s", "prima_autotune_s", "pas_autotune_s")
_ORDINEA_2 = "(" + ", ".join(_NUME_2) + ")"
_FORMULA_2 = (
    f"Modelul cursului: {FORMULA}. Cauți cel mai mic n ≥ 1 pentru care prima_autotune_s + (n − 1) · "
    "pas_autotune_s ≤ prima_default_s + (n − 1) · pas_default_s, și de acolo încolo rămâne așa."
)
#: Numele din pachetul cursului care fac deja calculul cerut.
#: Funcțiile cursului care dau chiar răspunsul exercițiului 2 (cursantul trebuie să-l scrie el).
_FUNCTII_REFERINTA_2 = {apel_de_amortizare: "apel_de_amortizare", prag_rentabilitate: "prag_rentabilitate"}
#: Peste atâția pași, un răspuns e socotit absurd (cazurile verificate cer cel mult ~10⁶).
_PASI_URIASI = 10**12


@dataclass(frozen=True)
class _Caz2:
    fel: str
    descriere: str
    argumente: tuple  # (prima_default_s, pas_default_s, prima_autotune_s, pas_autotune_s)

    @property
    def asteptat(self) -> int | None:
        return apel_de_amortizare(*self.argumente)

    @property
    def prin_formula(self) -> bool:
        """Adevărat dacă răspunsul iese din formulă (max-autotune e mai rapid pe pas și primul lui
        apel e mai scump), nu dintr-un caz limită."""
        prima_d, pas_d, prima_a, pas_a = self.argumente
        return pas_a < pas_d and prima_a > prima_d

    def apel(self) -> str:
        return "pasi_de_rentabilitate(" + ", ".join(repr(v) for v in self.argumente) + ")"

    def total(self, n: int, autotune: bool) -> float:
        prima_d, pas_d, prima_a, pas_a = self.argumente
        return cost_total(prima_a, pas_a, n) if autotune else cost_total(prima_d, pas_d, n)

    def diferenta(self, n: int) -> float:
        """Cu cât a costat max-autotune mai mult decât modul implicit după n pași (negativ: mai puțin)."""
        return self.total(n, True) - self.total(n, False)


def _descriere_2(prima_d, pas_d, prima_a, pas_a) -> str:
    return (
        f"modul implicit: primul apel {format_timp(prima_d)}, pasul {format_timp(pas_d)}; "
        f"max-autotune: primul apel {format_timp(prima_a)}, pasul {format_timp(pas_a)}"
    )


def _cazuri_2(generator) -> list[_Caz2]:
    """Cazurile exercițiului 2, alese la întâmplare la fiecare rulare: trei care se rezolvă cu
    formula (unul tipic, unul cu egalitate exactă la bit, unul cu răspunsul 2) și toate cazurile
    limită (1 și None)."""
    cazuri = []

    def adauga(fel, eticheta, prima_d, pas_d, prima_a, pas_a):
        argumente = (float(prima_d), float(pas_d), float(prima_a), float(pas_a))
        cazuri.append(_Caz2(fel, f"{eticheta} ({_descriere_2(*argumente)})", argumente))

    # tipic: n între ~10⁴ și ~4 · 10⁵; partea fracționară a raportului e între 0,1 și 0,4, iar la
    # cazul „aproape” între 0,55 și 0,9, ca rotunjirea la cel mai apropiat întreg să greșească
    while True:
        pas_d = round(generator.uniform(1.0, 5.0) / 1000, 5)
        pas_a = round(pas_d * generator.uniform(0.6, 0.85), 5)
        prima_d = round(generator.uniform(5.0, 40.0), 1)
        prima_a = round(prima_d + generator.uniform(20.0, 60.0), 1)
        x = (prima_a - prima_d) / (pas_d - pas_a)
        if 0.1 < x - math.floor(x) < 0.4:
            break
    adauga("tipic", "tipic", prima_d, pas_d, prima_a, pas_a)
    # egalitate exactă: valori exacte în binar, totalurile sunt egale la bit la n = k + 1
    m, j, k, s = generator.randint(200, 600), generator.randint(20, 100), generator.randint(100, 2000), generator.randint(2, 30)
    adauga("egalitate", "egalitate exactă la un pas", s, m / 1024, s + k * j / 1024, (m - j) / 1024)
    # aproape: primul apel al lui max-autotune e mai scump cu mai puțin decât câștigă pe un pas
    pas_d = round(generator.uniform(2.0, 5.0) / 1000, 5)
    pas_a = round(pas_d * generator.uniform(0.5, 0.8), 5)
    prima_d = round(generator.uniform(1.0, 10.0), 1)
    adauga("aproape", "primele apeluri aproape egale", prima_d, pas_d,
           prima_d + round((pas_d - pas_a) * generator.uniform(0.55, 0.9), 7), pas_a)
    # cazurile limită
    prima_d = round(generator.uniform(20.0, 60.0), 1)
    pas_d = round(generator.uniform(1.0, 5.0) / 1000, 5)
    mai_rapid = round(pas_d * generator.uniform(0.6, 0.9), 5)
    mai_lent = round(pas_d * generator.uniform(1.1, 1.4), 5)
    mai_ieftin = round(prima_d - generator.uniform(2.0, 15.0), 1)
    mai_scump = round(prima_d + generator.uniform(20.0, 60.0), 1)
    adauga("mai_ieftin", "max-autotune are primul apel mai ieftin și pasul mai rapid", prima_d, pas_d, mai_ieftin, mai_rapid)
    adauga("prima_egala", "primele apeluri egale, pasul max-autotune mai rapid", prima_d, pas_d, prima_d, mai_rapid)
    adauga("mai_lent", "pasul max-autotune e mai lent, primul apel mai scump", prima_d, pas_d, mai_scump, mai_lent)
    adauga("pasi_egali_scump", "pași egali, primul apel max-autotune mai scump", prima_d, pas_d, mai_scump, pas_d)
    adauga("mai_lent_ieftin", "pasul max-autotune e mai lent, dar primul apel mai ieftin", prima_d, pas_d, mai_ieftin, mai_lent)
    adauga("pasi_egali_ieftin", "pași egali, primul apel max-autotune mai ieftin", prima_d, pas_d, mai_ieftin, pas_d)
    return cazuri


def _raspuns_2(functie, caz: _Caz2):
    """Răspunsul cursantului pentru un caz, cu limită de timp și excepțiile explicate."""
    if caz.asteptat is None:
        mesaj_timp = (
            f"Pentru cazul „{caz.descriere}”, funcția n-a terminat în {format_timp(LIMITA_APEL_2_S)}. Aici "
            "max-autotune nu ajunge niciodată să rămână sub modul implicit, așa că o buclă care crește n "
            "până când ajunge nu se oprește: verifică întâi cazul acesta și întoarce None."
        )
    else:
        mesaj_timp = (
            f"Pentru cazul „{caz.descriere}”, funcția n-a terminat în {format_timp(LIMITA_APEL_2_S)}, cât are "
            "voie. Caută o buclă care nu se oprește, sau calculează n direct, cu math.ceil, în loc să-l cauți pas cu pas."
        )
    try:
        with limita_timp(LIMITA_APEL_2_S, "funcția ta", mesaj=mesaj_timp):
            valoare = apeleaza(functie, *caz.argumente, limita_s=None, interzise=_FUNCTII_REFERINTA_2)
    except GresealaCursant as greseala:
        text = str(greseala)
        if text in (NESCRIS, mesaj_timp) or text.startswith("Funcția ta cheamă"):
            raise
        prima_d, pas_d, prima_a, pas_a = caz.argumente
        if text.startswith("Codul tău a aruncat ZeroDivisionError") and pas_a == pas_d:
            raise GresealaCursant(
                f"Pentru cazul „{caz.descriere}”, codul tău a împărțit la zero: aici pașii durează la fel "
                "(pas_autotune_s == pas_default_s). Verifică acest caz înainte de împărțire: max-autotune nu "
                "câștigă și nu pierde nimic pe pas, deci răspunsul e 1 dacă primul lui apel nu e mai scump, "
                "altfel None."
            ) from None
        raise GresealaCursant(f"Pentru cazul „{caz.descriere}” (apelul `{caz.apel()}`): {text}") from None
    if isinstance(valoare, torch.Tensor) and valoare.numel() == 1 and not valoare.is_meta:
        valoare = valoare.item()
    return valoare


def _diferenta_text(caz: _Caz2, n: int) -> str:
    """„cu 120 µs mai mult decât modul implicit” pentru totalul după n pași."""
    diferenta = caz.diferenta(n)
    if diferenta == 0:
        return "exact cât modul implicit"
    return f"cu {format_timp(abs(diferenta))} {'mai mult' if diferenta > 0 else 'mai puțin'} decât modul implicit"


def _primul_pas_pierdut(caz: _Caz2) -> int:
    """Cel mai mic n de la care max-autotune costă, în total, mai mult (când e mai lent pe pas)."""
    prima_d, pas_d, prima_a, pas_a = caz.argumente
    n = max(1, 2 + math.floor((prima_d - prima_a) / (pas_a - pas_d)))
    while n > 1 and caz.diferenta(n - 1) > 0:
        n -= 1
    while caz.diferenta(n) <= 0:
        n += 1
    return n


def _diagnostic_valoare_2(caz: _Caz2, obtinut) -> str | None:
    """Un răspuns care nu e un număr întreg de pași (sau None): ce e greșit la el, ori None dacă
    e un număr de pași (int, întreg NumPy sau float cu valoare întreagă)."""
    inceput = f"Pentru cazul „{caz.descriere}” ai întors {obtinut!r}"
    asteptat = caz.asteptat
    trebuia = "None" if asteptat is None else format_numar(asteptat)
    if obtinut is None:
        return None
    if _e_intreg(obtinut):
        if abs(obtinut) > _PASI_URIASI:
            return f"{inceput}, un număr uriaș de pași, dar trebuia {trebuia}. {_FORMULA_2}"
        return None
    if isinstance(obtinut, bool) or not isinstance(obtinut, numbers.Real):
        return f"{inceput} ({type(obtinut).__name__}), dar trebuia un număr întreg de pași sau None (aici: {trebuia})."
    valoare = float(obtinut)
    if math.isnan(valoare):
        return f"{inceput}, dar trebuia {trebuia}. Verifică împărțirile. {_FORMULA_2}"
    if math.isinf(valoare):
        if asteptat is None:
            return (
                f"{inceput}. Ideea e bună (niciodată), dar funcția trebuie să întoarcă None, nu infinit: "
                "None spune limpede „nu există un asemenea n”, iar un număr, chiar infinit, se poate aduna "
                "sau compara din greșeală mai departe."
            )
        return f"{inceput}, dar trebuia {trebuia}. {_FORMULA_2}"
    if abs(valoare) > _PASI_URIASI:
        return f"{inceput}, un număr uriaș de pași, dar trebuia {trebuia}. {_FORMULA_2}"
    if not valoare.is_integer():
        return (
            f"{inceput}: n-ai rotunjit. Pașii se numără în întregi: rotunjește în sus cu math.ceil "
            f"(trebuia {trebuia}). {_FORMULA_2}"
        )
    return None


def _diagnostic_limita_2(caz: _Caz2, obtinut) -> str:
    """De ce e greșit `obtinut` într-un caz limită (răspunsul corect e 1 sau None)."""
    prima_d, pas_d, prima_a, pas_a = caz.argumente
    inceput = f"Pentru cazul „{caz.descriere}” ai întors {obtinut!r}"
    if caz.asteptat is None:
        if obtinut is not None and obtinut < 1:
            nu_minus_unu = " (nu -1)" if obtinut == -1 else ""
            return (
                f"{inceput}, dar {obtinut} nu e un număr de pași: aici max-autotune nu se amortizează "
                f"niciodată, iar asta se spune cu None{nu_minus_unu}. Verifică acest caz înainte de formulă."
            )
        if pas_a == pas_d:
            return (
                f"{inceput}, dar trebuia None. Pașii durează la fel ({format_timp(pas_d)}), deci diferența dintre "
                f"totaluri rămâne la nesfârșit cea dintre primele apeluri ({format_timp(prima_a - prima_d)} în "
                "defavoarea lui max-autotune): nu o recuperează niciodată."
            )
        if caz.diferenta(obtinut) <= 0:
            pierdut = _primul_pas_pierdut(caz)
            return (
                f"{inceput}, dar trebuia None. La n = {format_numar(obtinut)}, max-autotune a costat într-adevăr "
                f"{_diferenta_text(caz, obtinut)}, fiindcă primul lui apel e mai ieftin. Dar e mai lent pe pas "
                f"(cu {format_timp(pas_a - pas_d)}), așa că de la n = {format_numar(pierdut)} încolo costă mai mult "
                "și rămâne așa. Amortizat înseamnă că nu mai pierde de acolo încolo: când max-autotune e mai "
                "lent pe pas, asta nu se întâmplă niciodată."
            )
        return (
            f"{inceput}, dar trebuia None. La n = {format_numar(obtinut)}, max-autotune a costat în total "
            f"{_diferenta_text(caz, obtinut)}, iar fiindcă e și mai lent pe pas (cu {format_timp(pas_a - pas_d)}), "
            "diferența doar crește: nu se amortizează niciodată."
        )
    # aici răspunsul corect e 1
    if obtinut is None:
        return (
            f"{inceput}, dar trebuia 1. Aici max-autotune nu pierde la niciun pas: primul lui apel nu e mai "
            f"scump ({format_timp(prima_a)} față de {format_timp(prima_d)}), iar pasul nu e mai lent "
            f"({format_timp(pas_a)} față de {format_timp(pas_d)}). None e doar pentru cazul în care nu ajunge "
            "niciodată să rămână sub modul implicit."
        )
    if obtinut == 0:
        return (
            f"{inceput}, dar numărarea pașilor începe de la n = 1: aici max-autotune e în câștig (sau la "
            "egalitate) chiar de la primul pas. Întoarce cel puțin 1 (de exemplu max(1, n))."
        )
    if obtinut < 0:
        return (
            f"{inceput}, un număr negativ. Aici primul apel al lui max-autotune nu e mai scump, deci "
            "diferența primelor apeluri e negativă (sau zero) și formula dă un n mai mic decât 1. E în câștig "
            "chiar de la primul pas: răspunsul e 1 (folosește max(1, n))."
        )
    return (
        f"{inceput}, dar trebuia 1: deja după primul pas max-autotune a costat {_diferenta_text(caz, 1)}, și "
        "rămâne așa, fiindcă pasul lui nu e mai lent."
    )


def _x_2(argumente) -> float:
    prima_d, pas_d, prima_a, pas_a = argumente
    return (prima_a - prima_d) / (pas_d - pas_a)


#: Greșeli cunoscute la cazurile rezolvate cu formula: (cum se calculează, explicația). Una e
#: numită doar dacă răspunsurile cursantului sunt exact ale ei pe toate aceste cazuri.
_GRESELI_FORMULA_2 = (
    (
        lambda a: max(1, math.ceil(_x_2(a))),
        "Răspunsurile tale sunt exact ce dă totalul socotit ca prima + n · pas (adică n ≥ diferența "
        "primelor apeluri / câștigul pe pas, rotunjit în sus). Dar primul apel e deja primul pas (compilarea "
        "plus o rulare): după n pași totalul e prima + (n − 1) · pas, deci răspunsul e cu 1 mai mare.",
    ),
    (
        lambda a: 1 + math.floor(_x_2(a)),
        "Răspunsurile tale sunt exact ce dă rotunjirea în jos (math.floor sau int(...)): la cazul cu "
        "egalitate exactă ies bine, la celelalte sunt cu 1 mai mici. După atâția pași, max-autotune încă "
        "n-a recuperat primul apel mai scump: rotunjește în sus, cu math.ceil.",
    ),
    (
        lambda a: 2 + math.floor(_x_2(a)),
        "Răspunsurile tale sunt bune peste tot, mai puțin la cazul cu egalitate exactă, unde ai cu 1 mai "
        "mult: acolo totalurile sunt exact egale la n-ul corect, iar condiția e „≤” (costă cel mult cât "
        "modul implicit), deci n-ul acela se numără. Probabil ai folosit floor(...) + 1 sau o comparație strictă (<).",
    ),
    (
        lambda a: 2 + math.ceil(_x_2(a)),
        "Răspunsurile tale sunt peste tot cu 1 mai mari decât trebuie: ai numărat un pas în plus.",
    ),
    (
        lambda a: 1,
        "Ai întors 1 și unde primul apel al lui max-autotune e mai scump: ai răspuns ca și cum primul apel "
        "n-ar costa nimic în plus.",
    ),
)


def _diagnostic_formula_2(caz: _Caz2, obtinut: int) -> str:
    """Un răspuns greșit la un caz rezolvat cu formula, explicat cu totalurile."""
    asteptat = caz.asteptat
    inceput = (
        f"Pentru cazul „{caz.descriere}” ai întors {obtinut!r}, dar trebuia {format_numar(asteptat)} "
        f"(apelul `{caz.apel()}`)."
    )
    if obtinut < 1:
        explicatie = "Un număr de pași e cel puțin 1."
    elif obtinut < asteptat:
        explicatie = (
            f"După {cu_substantiv(int(obtinut), 'pas', 'pași')}, max-autotune a costat în total "
            f"{_diferenta_text(caz, obtinut)}: încă n-a recuperat primul apel mai scump."
        )
    else:
        explicatie = (
            f"Deja după {cu_substantiv(asteptat, 'pas', 'pași')}, max-autotune a costat în total "
            f"{_diferenta_text(caz, asteptat)}, și de acolo încolo rămâne așa."
        )
    return f"{inceput} {explicatie} {_FORMULA_2}"


def _permutare_potrivita(cazuri: list[_Caz2], obtinute: list) -> tuple | None:
    """O ordine a argumentelor (alta decât cea corectă) cu care referința dă exact răspunsurile
    cursantului, dacă acestea nu sunt toate la fel; altfel None."""
    if len({repr(o) for o in obtinute}) < 2:
        return None
    for ordine in itertools.permutations(range(4)):
        if ordine == (0, 1, 2, 3):
            continue
        asteptate = [apel_de_amortizare(*(caz.argumente[i] for i in ordine)) for caz in cazuri]
        if all(_aproape_la_fel(o, a) for o, a in zip(obtinute, asteptate)):
            return ordine
    return None


def _aproape_la_fel(obtinut, asteptat) -> bool:
    """La fel, sau (pentru un număr mare de pași) cu cel mult 1 diferență: cu argumentele în altă
    ordine, raportul poate ieși un întreg exact, iar o formulă în virgulă mobilă îl rotunjește altfel."""
    if obtinut is None or asteptat is None:
        return obtinut is asteptat
    return obtinut == asteptat or (min(obtinut, asteptat) > 1 and abs(obtinut - asteptat) == 1)


def exercitiul_2(pasi_de_rentabilitate) -> Rezultat:
    """Verifică `pasi_de_rentabilitate(prima_default_s, pas_default_s, prima_autotune_s,
    pas_autotune_s)`: cel mai mic întreg n ≥ 1 de la care max-autotune a costat în total cel mult
    cât modul implicit (și rămâne așa), sau None dacă nu există. Totalul după n pași e
    `primul apel + (n − 1) · pas` (`curs_compilare.amortizare`); referința e `apel_de_amortizare`.

    Cazurile se aleg la întâmplare la fiecare rulare. Răspunsul trebuie să fie un întreg (int,
    sau un întreg NumPy); un float e respins, chiar dacă are valoarea bună, cu un mesaj care
    spune cum se repară."""

    def corp():
        cazuri = _cazuri_2(generator_aleator())
        brute = [_raspuns_2(pasi_de_rentabilitate, caz) for caz in cazuri]
        for caz, obtinut in zip(cazuri, brute):
            mesaj = _diagnostic_valoare_2(caz, obtinut)
            if mesaj:
                raise GresealaCursant(mesaj)
        obtinute = [None if o is None else int(o) for o in brute]
        asteptate = [caz.asteptat for caz in cazuri]
        if obtinute != asteptate:
            ordine = _permutare_potrivita(cazuri, obtinute)
            if ordine is not None:
                folosita = ", ".join(_NUME_2[i] for i in ordine)
                raise GresealaCursant(
                    "Răspunsurile tale sunt exact cele ale formulei corecte cu argumentele în altă ordine: "
                    f"ai lucrat ca și cum ordinea ar fi ({folosita}). Ordinea cerută e {_ORDINEA_2}."
                )
            for caz, obtinut, asteptat in zip(cazuri, obtinute, asteptate):
                if not caz.prin_formula and obtinut != asteptat:
                    raise GresealaCursant(_diagnostic_limita_2(caz, obtinut))
            formula = [(caz, o) for caz, o in zip(cazuri, obtinute) if caz.prin_formula]
            for calcul, explicatie in _GRESELI_FORMULA_2:
                if all(o == calcul(caz.argumente) for caz, o in formula):
                    raise GresealaCursant(f"{explicatie} {_FORMULA_2}")
            caz, obtinut = next((c, o) for c, o in formula if o != c.asteptat)
            raise GresealaCursant(_diagnostic_formula_2(caz, obtinut))
        floaturi = [(caz, o) for caz, o in zip(cazuri, brute) if isinstance(o, float)]
        if floaturi:
            caz, obtinut = floaturi[0]
            raise GresealaCursant(
                f"Pentru cazul „{caz.descriere}” ai întors {obtinut!r}: valoarea e bună, dar e un float. Un "
                "număr de pași e un întreg: întoarce un int (math.ceil întoarce deja int; numpy.ceil și "
                "împărțirea / întorc float — învelește în int(...))."
            )
        tipic = cazuri[0]
        prima_d, pas_d, prima_a, pas_a = tipic.argumente
        return (
            f"Toate cele {cu_substantiv(len(cazuri), 'caz', 'cazuri')}, alese la întâmplare, ies bine, inclusiv cele limită. În cazul "
            f"tipic ({_descriere_2(*tipic.argumente)}), max-autotune se amortizează după "
            f"{cu_substantiv(tipic.asteptat, 'pas', 'pași')}: primul lui apel costă cu {format_timp(prima_a - prima_d)} "
            f"mai mult, iar fiecare pas îi aduce înapoi {format_timp(pas_d - pas_a)}. La o antrenare lungă merită; "
            "la un notebook rulat o dată, nu."
        )

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_VERIFICARE_2_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: planul de compilare potrivit fiecărui GPU
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DescriereGPU:
    """Ce contează, la compilare, despre un GPU: capabilitatea CUDA (generația: 7.5 = Turing,
    8.0 și 8.6 = Ampere, 8.9 = Ada, 9.0 = Hopper), numărul de multiprocesoare (SM) și memoria."""

    nume: str
    capabilitate: tuple[int, int]
    numar_sm: int
    memorie_gib: float


#: GPU-uri reale, cu datele lor tehnice.
GPU_URI_DE_EXEMPLU = [
    DescriereGPU("Tesla T4", (7, 5), 40, 15.0),
    DescriereGPU("Tesla V100", (7, 0), 80, 32.0),
    DescriereGPU("A100", (8, 0), 108, 80.0),
    DescriereGPU("GeForce RTX 3060", (8, 6), 28, 12.0),
    DescriereGPU("GeForce RTX 3080", (8, 6), 68, 10.0),
    DescriereGPU("L4", (8, 9), 58, 24.0),
    DescriereGPU("GeForce RTX 4090", (8, 9), 128, 24.0),
    DescriereGPU("H100", (9, 0), 132, 80.0),
    DescriereGPU("H200", (9, 0), 132, 141.0),
]

# GPU-uri pe care cursantul nu le vede: regula trebuie să meargă pentru orice placă.
_GPU_URI_DE_CONTROL = [
    DescriereGPU("GeForce RTX 2080 Ti", (7, 5), 68, 11.0),
    DescriereGPU("A10G", (8, 6), 80, 24.0),
    DescriereGPU("GeForce RTX 4060", (8, 9), 24, 8.0),
    DescriereGPU("Tesla P100", (6, 0), 56, 16.0),
    DescriereGPU("RTX A6000", (8, 6), 84, 48.0),
]

#: Cât are voie să dureze un apel al funcției cursantului, și toată verificarea (care o apelează
#: de câteva zeci de ori, cu diagnosticul).
LIMITA_APEL_3_S = 2.0
LIMITA_VERIFICARE_3_S = 30.0
#: Câte GPU-uri inventate, cu date alese la întâmplare, se adaugă la fiecare rulare.
GPU_URI_ALEATOARE = 4

_CAPABILITATI_ALEATOARE = ((6, 1), (7, 0), (7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0))
_MEMORII_ALEATOARE = (6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 80.0, 96.0, 141.0, 192.0)


def _gpu_uri_aleatoare(generator) -> list[DescriereGPU]:
    """GPU-uri inventate, altele la fiecare rulare: unul cu exact pragul de SM, unul chiar sub el,
    unul mic și unul mare, cu capabilități și memorii alese la întâmplare (independent de SM)."""
    sm = [
        SM_MINIM_GEMM_AUTOTUNE,
        SM_MINIM_GEMM_AUTOTUNE - 1,
        generator.randint(10, SM_MINIM_GEMM_AUTOTUNE - 2),
        generator.randint(SM_MINIM_GEMM_AUTOTUNE + 1, 200),
    ][:GPU_URI_ALEATOARE]
    generator.shuffle(sm)
    capabilitati = [generator.choice(_CAPABILITATI_ALEATOARE) for _ in sm]
    capabilitati[generator.randrange(len(sm))] = (8, 0)  # pragul dtype-ului, cu un număr de SM oarecare
    return [
        DescriereGPU(
            f"GPU de test {generator.randint(100, 999)}-{litera}",
            capabilitate,
            numar,
            generator.choice(_MEMORII_ALEATOARE),
        )
        for litera, capabilitate, numar in zip("ABCDEFGH", capabilitati, sm)
    ]


_CHEI_PLAN = ("dtype", "sabloane_gemm")

_EXPLICATII_DTYPE = {
    "float32": (
        "float32 nu e un tip pentru viteză: nucleele tensoriale (tensor cores) ating viteza maximă cu "
        "tipuri de 16 biți (pe A100: 312 TFLOP/s în bf16 sau float16, față de 19,5 în float32 obișnuit), "
        "iar un tip de 16 biți mută și jumătate din octeți. Alege bfloat16 sau float16."
    ),
    "bf16_vechi": (
        "GPU-urile dinainte de Ampere (capabilitate sub 8.0, ca T4 și V100) n-au bf16 în nucleele "
        "tensoriale: PyTorch îl emulează, mult mai lent. Pe ele alege float16 (la antrenare, cu GradScaler)."
    ),
    "fp16_nou": (
        "De la Ampere (capabilitate 8.0) încolo, bf16 e la fel de rapid ca float16, dar are domeniul lui "
        "float32 (8 biți de exponent): nu depășește 65 504, ca float16, și nu cere scalarea pierderii "
        "(GradScaler). Alege bfloat16."
    ),
    "prag_8_0": (
        "Atenție la A100: capabilitatea lui e exact (8, 0), chiar pragul. Condiția e capabilitate ≥ (8, 0) "
        "(tuplurile se compară direct: gpu.capabilitate >= (8, 0))."
    ),
    "alt_tip": "Planul alege doar între torch.bfloat16 și torch.float16.",
}

_REGULA_SABLOANE = (
    f"Regula lui Inductor: numar_sm ≥ {SM_MINIM_GEMM_AUTOTUNE} (constanta SM_MINIM_GEMM_AUTOTUNE din "
    "curs_compilare.mediu); sub prag, max-autotune afișează „Not enough SMs to use max_autotune_gemm mode” "
    "și reglează doar restul kernel-urilor."
)

_EXPLICATII_SABLOANE = {
    "strict": (
        f"Pragul e inclusiv: cu exact {SM_MINIM_GEMM_AUTOTUNE} de SM (RTX 3080, RTX 2080 Ti), Inductor "
        f"folosește șabloanele. Condiția e numar_sm >= {SM_MINIM_GEMM_AUTOTUNE}, nu > {SM_MINIM_GEMM_AUTOTUNE}."
    ),
    "memorie_gib": (
        "Ai decis după memorie. Inductor nu se uită la memorie, ci la câte multiprocesoare (SM) are "
        f"GPU-ul: un RTX 3080 cu 10 GiB are {SM_MINIM_GEMM_AUTOTUNE} de SM și primește șabloanele, un L4 cu "
        "24 GiB are doar 58 și nu le primește."
    ),
    "capabilitate": (
        "Ai decis după capabilitate (generație). Pragul lui Inductor e numărul de multiprocesoare, nu "
        "generația: V100 (7.0) are 80 de SM și primește șabloanele, RTX 3060 (8.6) are doar 28 și nu."
    ),
    "nume": (
        "Ai decis după numele GPU-ului. Regula trebuie să meargă pentru orice placă, și pentru una pe "
        "care n-ai văzut-o: Inductor numără multiprocesoarele (numar_sm), nu citește numele."
    ),
    "fara_sm": "Decizia ta nu depinde de numar_sm, singurul câmp care contează aici.",
}

_EXPLICATII_DEPENDENTA_DTYPE = {
    "memorie_gib": "Alegerea tipului tău depinde de memorie; contează doar capabilitatea (generația).",
    "numar_sm": "Alegerea tipului tău depinde de numărul de SM; contează doar capabilitatea (generația).",
    "nume": (
        "Alegerea tipului tău depinde de numele GPU-ului; regula trebuie să meargă pentru orice placă: "
        "folosește capabilitatea."
    ),
}

_BAZA_PROBA = DescriereGPU("GPU de probă", (8, 0), 108, 40.0)
_VARIANTE_PROBA = {
    "nume": ("GPU de probă", "NVIDIA A100-SXM4-80GB", "Tesla T4", "GeForce RTX 3080"),
    "memorie_gib": (8.0, 16.0, 40.0, 80.0, 141.0),
    "numar_sm": (28, 58, 68, 108, 132),
    "capabilitate": ((7, 0), (7, 5), (8, 0), (8, 6), (9, 0)),
}


def _plan_corect(gpu: DescriereGPU) -> tuple[torch.dtype, bool]:
    tip = torch.bfloat16 if tuple(gpu.capabilitate) >= (8, 0) else torch.float16
    return tip, gpu.numar_sm >= SM_MINIM_GEMM_AUTOTUNE


def _nume_tip(tip) -> str:
    return str(tip).replace("torch.", "") if isinstance(tip, torch.dtype) else repr(tip)


def _descriere_scurta(gpu: DescriereGPU) -> str:
    major, minor = gpu.capabilitate
    return f"{gpu.nume} (capabilitate {major}.{minor}, {cu_substantiv(gpu.numar_sm, 'SM', 'SM')}, {format_numar(gpu.memorie_gib)} GiB)"


def _mesaj_timp_3(gpu: DescriereGPU) -> str:
    return (
        f"Pentru {_descriere_scurta(gpu)}, funcția ta n-a terminat în {format_timp(LIMITA_APEL_3_S)}. "
        "Planul e o decizie din două comparații: caută o buclă care nu se oprește."
    )


def _plan_cursant(plan_pentru, gpu: DescriereGPU, cunoscut: bool) -> tuple[torch.dtype, bool]:
    """Planul cursantului pentru `gpu`, verificat ca formă: (dtype, sabloane_gemm)."""
    try:
        with limita_timp(LIMITA_APEL_3_S, "funcția ta", mesaj=_mesaj_timp_3(gpu)):
            plan = apeleaza(plan_pentru, gpu, limita_s=None, interzise={_plan_corect: "_plan_corect"})
    except GresealaCursant as greseala:
        text = str(greseala)
        if text in (NESCRIS, _mesaj_timp_3(gpu)):
            raise
        sfat = ""
        if not cunoscut and "KeyError" in text:
            sfat = (
                " Acest GPU nu e în GPU_URI_DE_EXEMPLU: regula trebuie să meargă pentru orice placă, deci "
                "decide după gpu.capabilitate și gpu.numar_sm, nu după nume."
            )
        raise GresealaCursant(f"Pentru {_descriere_scurta(gpu)}: {text}{sfat}") from None
    unde = f"pentru {gpu.nume}"
    if plan is None:
        raise GresealaCursant(f"Funcția a întors None {unde}: ai uitat `return`?")
    if not isinstance(plan, dict):
        raise GresealaCursant(
            f"Trebuia un dicționar {{'dtype': ..., 'sabloane_gemm': ...}}, dar {unde} ai întors "
            f"{type(plan).__name__}."
        )
    lipsa = [cheie for cheie in _CHEI_PLAN if cheie not in plan]
    if lipsa:
        are = ", ".join(repr(k) for k in plan) or "nicio cheie"
        raise GresealaCursant(
            f"Dicționarul {unde} nu are {'cheia' if len(lipsa) == 1 else 'cheile'} "
            f"{', '.join(repr(k) for k in lipsa)} (are: {are}). Cheile sunt exact 'dtype' și 'sabloane_gemm'."
        )
    tip = plan["dtype"]
    if isinstance(tip, str):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'dtype' e textul {tip!r}; folosește obiectul PyTorch: torch.bfloat16 "
            "sau torch.float16."
        )
    if not isinstance(tip, torch.dtype):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'dtype' e {type(tip).__name__}; trebuia torch.bfloat16 sau torch.float16."
        )
    sabloane = plan["sabloane_gemm"]
    if isinstance(sabloane, torch.Tensor) and sabloane.numel() == 1 and sabloane.dtype == torch.bool:
        sabloane = bool(sabloane.item())
    elif isinstance(sabloane, np.bool_) or (isinstance(sabloane, np.ndarray) and sabloane.shape == () and sabloane.dtype == bool):
        sabloane = bool(sabloane)
    if not isinstance(sabloane, bool):
        raise GresealaCursant(
            f"{_cu_majuscula(unde)}, 'sabloane_gemm' e {sabloane!r} ({type(sabloane).__name__}); trebuie să fie "
            "True sau False (de exemplu, rezultatul unei comparații)."
        )
    return tip, sabloane


def _proba(plan_pentru, gpu: DescriereGPU):
    """Planul cursantului pentru un GPU de probă, sau None dacă funcția cade (dacă depășește
    limita de timp, verificarea se oprește)."""
    try:
        return _plan_cursant(plan_pentru, gpu, cunoscut=False)
    except GresealaCursant as greseala:
        if str(greseala) == _mesaj_timp_3(gpu):
            raise
        return None


def _depinde_de(plan_pentru, camp: str, indice: int) -> bool:
    """Adevărat dacă decizia `indice` (0 = dtype, 1 = sabloane_gemm) se schimbă când se schimbă
    doar câmpul `camp` al GPU-ului de probă."""
    decizii = set()
    for valoare in _VARIANTE_PROBA[camp]:
        plan = _proba(plan_pentru, replace(_BAZA_PROBA, **{camp: valoare}))
        if plan is not None:
            decizii.add(plan[indice])
    return len(decizii) > 1


def _explica_dtype(plan_pentru, gresite) -> list[str]:
    explicatii = []
    for gpu, obtinut, asteptat in gresite:
        if obtinut == torch.float32:
            cheie = "float32"
        elif obtinut not in (torch.bfloat16, torch.float16):
            cheie = "alt_tip"
        elif obtinut == torch.bfloat16:
            cheie = "bf16_vechi"
        else:
            cheie = "fp16_nou"
        if _EXPLICATII_DTYPE[cheie] not in explicatii:
            explicatii.append(_EXPLICATII_DTYPE[cheie])
    prag = [g for g, o, _ in gresite if tuple(g.capabilitate) == (8, 0) and o == torch.float16]
    if prag and all(tuple(g.capabilitate) == (8, 0) for g, _, _ in gresite):
        explicatii.append(_EXPLICATII_DTYPE["prag_8_0"])
    if all(o in (torch.bfloat16, torch.float16) for _, o, _ in gresite):
        # alegerea e între cele două tipuri, dar greșită: după ce depinde? (prima dependență găsită)
        for camp, explicatie in _EXPLICATII_DEPENDENTA_DTYPE.items():
            if _depinde_de(plan_pentru, camp, 0):
                explicatii.append(explicatie)
                break
    return explicatii


def _explica_sabloane(plan_pentru) -> list[str]:
    explicatii = []
    la_prag = _proba(plan_pentru, replace(_BAZA_PROBA, numar_sm=SM_MINIM_GEMM_AUTOTUNE))
    peste_prag = _proba(plan_pentru, replace(_BAZA_PROBA, numar_sm=SM_MINIM_GEMM_AUTOTUNE + 1))
    if la_prag is not None and peste_prag is not None and not la_prag[1] and peste_prag[1]:
        explicatii.append(_EXPLICATII_SABLOANE["strict"])
    else:
        # după ce depinde decizia? ne oprim la prima dependență greșită găsită
        camp = next((c for c in ("memorie_gib", "capabilitate", "nume") if _depinde_de(plan_pentru, c, 1)), None)
        if camp is not None:
            explicatii.append(_EXPLICATII_SABLOANE[camp])
        if not _depinde_de(plan_pentru, "numar_sm", 1):
            explicatii.append(_EXPLICATII_SABLOANE["fara_sm"])
    explicatii.append(_REGULA_SABLOANE)
    return explicatii


def _grupate(gresite, greseala, descriere) -> list[str]:
    """Rândurile „  ai ales X în loc de Y pentru: A (8.0), B (8.6)”, câte unul pe greșeală."""
    grupuri: dict = {}
    for gpu, obtinut, asteptat in gresite:
        grupuri.setdefault(greseala(obtinut, asteptat), []).append(descriere(gpu))
    return [f"  {text} pentru: {', '.join(gpu_uri)}" for text, gpu_uri in grupuri.items()]


def exercitiul_3(plan_pentru) -> Rezultat:
    """Verifică `plan_pentru(gpu: DescriereGPU) -> {"dtype": ..., "sabloane_gemm": ...}` pe
    GPU-urile din `GPU_URI_DE_EXEMPLU` și pe câteva pe care cursantul nu le vede: bfloat16 de la
    capabilitatea (8, 0) încolo, altfel float16; șabloanele GEMM ale lui max-autotune de la
    `SM_MINIM_GEMM_AUTOTUNE` (68) multiprocesoare în sus. La fiecare rulare se adaugă și câteva
    GPU-uri inventate, cu date alese la întâmplare."""

    def corp():
        gpu_uri = (
            [(g, True) for g in GPU_URI_DE_EXEMPLU]
            + [(g, False) for g in _GPU_URI_DE_CONTROL]
            + [(g, False) for g in _gpu_uri_aleatoare(generator_aleator())]
        )
        gresite_dtype, gresite_sabloane = [], []
        for gpu, cunoscut in gpu_uri:
            tip, sabloane = _plan_cursant(plan_pentru, gpu, cunoscut)
            tip_corect, sabloane_corect = _plan_corect(gpu)
            if tip != tip_corect:
                gresite_dtype.append((gpu, tip, tip_corect))
            if sabloane != sabloane_corect:
                gresite_sabloane.append((gpu, sabloane, sabloane_corect))
        if not gresite_dtype and not gresite_sabloane:
            mesaj = (
                f"Planul e corect pentru toate cele {cu_substantiv(len(GPU_URI_DE_EXEMPLU), 'GPU', 'GPU-uri')} din listă și pentru "
                f"{len(gpu_uri) - len(GPU_URI_DE_EXEMPLU)} pe care nu le-ai văzut: bfloat16 de la Ampere (8.0) încolo, "
                f"float16 înainte; șabloanele GEMM ale lui max-autotune doar de la {SM_MINIM_GEMM_AUTOTUNE} de SM în sus."
            )
            mediu = detecteaza_mediul()
            if mediu.are_gpu:
                al_tau = DescriereGPU(mediu.nume_gpu, mediu.capabilitate, mediu.numar_sm, mediu.memorie_gpu_gib)
                tip, sabloane = _plan_corect(al_tau)
                mesaj += (
                    f" Pe GPU-ul tău ({al_tau.nume}): {_nume_tip(tip)}, iar șabloanele GEMM "
                    + ("sunt folosite." if sabloane else "nu sunt folosite.")
                )
            return mesaj
        nume_gresite = []
        for gpu, _, _ in gresite_dtype + gresite_sabloane:
            if gpu.nume not in nume_gresite:
                nume_gresite.append(gpu.nume)
        if len(nume_gresite) == len(gpu_uri):
            randuri = [f"Planul e greșit pentru toate cele {cu_substantiv(len(gpu_uri), 'GPU', 'GPU-uri')} verificate: {', '.join(nume_gresite)}."]
        else:
            randuri = [f"Planul e greșit pentru: {', '.join(nume_gresite)}."]
        if gresite_dtype:
            randuri.append("Tipul de date (dtype):")
            randuri += _grupate(
                gresite_dtype,
                lambda o, a: f"ai ales {_nume_tip(o)} în loc de {_nume_tip(a)}",
                lambda g: f"{g.nume} ({g.capabilitate[0]}.{g.capabilitate[1]})",
            )
            randuri += _explica_dtype(plan_pentru, gresite_dtype)
        if gresite_sabloane:
            randuri.append("Șabloanele GEMM (sabloane_gemm):")
            randuri += _grupate(
                gresite_sabloane, lambda o, a: f"ai pus {o} în loc de {a}",
                lambda g: f"{g.nume} ({cu_substantiv(g.numar_sm, 'SM', 'SM')})",
            )
            randuri += _explica_sabloane(plan_pentru)
        raise GresealaCursant("\n".join(randuri))

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_3_S)
