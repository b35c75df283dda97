"""Capitolul 08: structura notebook-ului (ca în celelalte capitole), exercițiile cu ciot și
verificare, numerele tipărite prin `curs_compilare.cifre`, terminologia ghidului, faptele din text
verificate pe versiunea instalată și secțiunea nodului cu mai multe GPU-uri, care nu tipărește
nicio cifră inventată cât referința ei lipsește."""

import re

import nbformat
import torch

from curs_compilare import cifre
from curs_compilare.capitole import cap08_distribuit as distribuit
from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import cod as _cod
from text_notebook import surse

CAPITOL = RADACINA / "notebooks" / "08_antrenare_distribuita.ipynb"
SOLUTIE = RADACINA / "solutions" / "08_antrenare_distribuita_solutii.ipynb"


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].source.startswith("# 08 · ")
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**", "08_antrenare_distribuita.ipynb"):
        assert fragment in celule[0].source
    text = markdown(CAPITOL)
    for titlu in ("## 1. ", "## 2. DDP sub `torch.compile`", "## 3. Compilarea care nu face nimic", "## 4. FSDP2",
                  "## 5. ", "## Exercițiul 1", "## Exercițiul 2", "## Exercițiul 3", "## Ce ai învățat"):
        assert titlu in text, titlu


def test_exercitiile_au_ciot_si_verificare():
    cod = _cod(CAPITOL)
    assert "from curs_compilare.exercitii import cap08 as verificari" in cod
    for numar, semnatura in ((1, "def pregateste(model, backend):"), (2, "def numar_grafuri(octeti, galeata_mb):"),
                             (3, "def pregateste_fsdp(model, retea, backend):")):
        assert semnatura in cod and f"verificari.exercitiul_{numar}(" in cod
    assert cod.count("raise NotImplementedError") == 3
    solutii = _cod(SOLUTIE)
    assert "raise NotImplementedError" not in solutii and solutii.count("assert rezultat, rezultat.mesaj") == 3


def test_ciotul_e_recunoscut_fara_sa_fie_rulat():
    from curs_compilare.exercitii import cap08

    import linecache

    spatiu = {}
    for indice, sursa in enumerate(surse(CAPITOL, "code")):
        if "raise NotImplementedError" in sursa:
            definitii = sursa.split("verificari.exercitiul_")[0]
            fisier = f"<celula {indice}>"  # ca IPython: sursa celulei, în linecache
            linecache.cache[fisier] = (len(definitii), None, definitii.splitlines(True), fisier)
            exec(compile(definitii, fisier, "exec"), spatiu)
    for nume in ("pregateste", "numar_grafuri", "pregateste_fsdp"):
        assert cap08._e_ciot(spatiu[nume]), nume

    def scrisa(model, backend):
        raise NotImplementedError("nu pe CPU")  # o excepție cu mesaj nu e ciotul

    assert not cap08._e_ciot(scrisa)


def test_numerele_tiparite_trec_prin_cifre():
    for cale in (CAPITOL, SOLUTIE):
        cod = _cod(cale)
        assert not FORMAT_INTERZIS.findall(cod), FORMAT_INTERZIS.findall(cod)
        assert "plt.show()" not in cod


def test_terminologia_si_vocea():
    for cale in (CAPITOL, SOLUTIE):
        text = markdown(cale) + "\n" + "\n".join(siruri_din_cod(cale))
        assert not NOI.findall(text) and not APELARE.findall(text)
        assert not re.search("[\u015f\u015e\u0163\u0162]", text)
        assert not re.search(r"\bvs\.?\b|\bscris de noi\b", text)
    text = markdown(CAPITOL)
    for termen in ("all-reduce", "găleți", "rang", "fragmentează", "rețea de dispozitive", "DTensor"):
        assert termen in text, termen


def test_faptele_din_text_pe_versiunea_instalata():
    text = markdown(CAPITOL)
    # Prima găleată: 1 MiB, constanta lui torch.distributed pe care o imită DDPOptimizer.
    assert torch.distributed._DEFAULT_FIRST_BUCKET_BYTES == 2**20 == distribuit.PRIMA_GALEATA_MB * 2**20
    assert "_DEFAULT_FIRST_BUCKET_BYTES" in text
    # „8 blocuri de câte 1 MiB”: un bloc de lățime 512 are puțin peste 1 MiB.
    assert 2**20 < distribuit.octeti_pe_strat(distribuit.ReteaBlocuri(512, 1))[0] < 1.01 * 2**20
    # Versiunile spuse în text sunt cele măsurate (testul plasării o verifică pe versiunea instalată).
    assert "zero grafuri cu torch 2.13.0 și un graf cu 2.14.1" in text
    # Autograd-ul compilat: API-ul privat numit în text există pe versiunea instalată.
    from torch._dynamo import compiled_autograd

    assert hasattr(compiled_autograd, "_enable") and "compiled_autograd._enable" in text
    assert hasattr(torch.distributed.fsdp, "fully_shard") and hasattr(torch.distributed.fsdp, "FSDPModule")
    assert hasattr(torch._dynamo.config, "error_on_recompile")


def test_referinta_nodului_cu_mai_multe_gpuuri_nu_inventeaza_cifre():
    text = markdown(CAPITOL)
    cod = _cod(CAPITOL)
    assert 'cifre.afiseaza_referinta("08.multi_gpu")' in cod
    are_cifre = any(c["cheie"].startswith("08.multi_gpu") for c in cifre.referinta().get("cifre", []))
    assert ("**încă nu există**" in text) != are_cifre, "fraza despre referință trebuie să spună adevărul"
    sectiunea = text.split("## 5. ", 1)[1].split("## Exercițiul 1", 1)[0]
    assert not re.search(r"\d+[,.]?\d*\s*(?:×|ms|%|GB/s)", sectiunea), "nicio cifră scrisă de mână în secțiunea 5"
    assert "benchmarks/capitolul08.py" in sectiunea and (RADACINA / "benchmarks" / "capitolul08.py").is_file()


def test_ce_urmeaza_are_legaturi():
    ce_am_invatat = markdown(CAPITOL).split("## Ce ai învățat", 1)[1]
    assert "docs.pytorch.org" in ce_am_invatat and "torchtitan" in ce_am_invatat
