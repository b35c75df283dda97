"""Testele modulului `mediu`: detectarea mașinii și profilul de dimensiuni."""

import torch

from curs_compilare import mediu


def test_detecteaza_mediul_pe_cpu_are_campurile_cerute():
    m = mediu.detecteaza_mediul()
    assert m.dispozitiv in ("cpu", "cuda")
    assert m.versiune_torch == torch.__version__
    assert m.are_gpu == torch.cuda.is_available()
    if not m.are_gpu:
        assert m.device == torch.device("cpu")
        assert m.nume_gpu is None and m.numar_sm is None


def test_rezumatul_e_in_romana_si_pomeneste_versiunile():
    text = mediu.detecteaza_mediul().rezumat()
    assert "Dispozitiv:" in text
    assert torch.__version__ in text
    assert "Profil de dimensiuni" in text


def test_profilul_vine_din_variabila_de_mediu(monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_PROFIL, "rapid")
    assert mediu.profil_curent() == "rapid"
    assert mediu.dimensiune(gpu=3, cpu=2, rapid=1) == 1
    monkeypatch.setenv(mediu.VARIABILA_PROFIL, "complet")
    asteptat = 3 if torch.cuda.is_available() else 2
    assert mediu.dimensiune(gpu=3, cpu=2, rapid=1) == asteptat
    monkeypatch.delenv(mediu.VARIABILA_PROFIL)
    assert mediu.profil_curent() == "complet"


def test_dimensiune_fara_varianta_rapida_foloseste_masina(monkeypatch):
    monkeypatch.setenv(mediu.VARIABILA_PROFIL, "rapid")
    asteptat = "g" if torch.cuda.is_available() else "c"
    assert mediu.dimensiune(gpu="g", cpu="c") == asteptat


def test_gpu_simulat_in_rezumat_la_putine_sm():
    # Un GPU mic (ca T4) trebuie semnalat; construim descrierea direct.
    m = mediu.Mediu(
        dispozitiv="cuda", pe_colab=True, nume_gpu="Tesla T4", capabilitate=(7, 5), numar_sm=40,
        memorie_gpu_gib=15.0, bf16_nativ=False, gemm_autotune_posibil=False,
    )
    text = m.rezumat()
    assert "Tesla T4" in text and "Colab" in text
    assert "bf16 nativ: nu" in text
    assert f"cel puțin {mediu.SM_MINIM_GEMM_AUTOTUNE} de SM" in text
    assert "40 de multiprocesoare" in text


def test_compilatorul_cpp_e_gasit_pe_masina_de_test():
    # Testele cursului execută torch.compile pe CPU, deci compilatorul trebuie să existe.
    assert mediu.detecteaza_mediul().compilator_cpp is not None


def test_sincronizeaza_pe_cpu_nu_face_nimic():
    mediu.sincronizeaza("cpu")
    mediu.sincronizeaza()


def test_make_test_compileaza_fara_grupul_de_procese_al_lui_inductor():
    """`make test` rulează mai multe procese de teste pe toate nucleele: fiecare proces care compilează
    o face singur (`TORCHINDUCTOR_COMPILE_THREADS=1`), fără grupul de procese de compilare al lui Inductor,
    care ar mai porni interpretoare cu torch. Lab-ul și validarea nu fixează variabila."""
    import re
    from pathlib import Path

    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text(encoding="utf-8")
    retete = {m.group(1): m.group(2) for m in re.finditer(r"^([a-z-]+):.*\n((?:\t.*\n?)+)", makefile, re.M)}
    assert "TORCHINDUCTOR_COMPILE_THREADS=1" in retete["test"] and "CURS_PROFIL=rapid" in retete["test"]
    for tinta in ("lab", "validare", "verifica"):
        assert "TORCHINDUCTOR_COMPILE_THREADS" not in retete[tinta], tinta
